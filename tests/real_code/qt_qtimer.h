// Cut down from Qt 6 src/corelib/kernel/qtimer.h (LGPL-3.0 / GPL licence).
#ifndef QTIMER_H
#define QTIMER_H

#include <QtCore/qglobal.h>
#include <QtCore/qbasictimer.h>
#include <QtCore/qobject.h>

QT_BEGIN_NAMESPACE

class QTimerPrivate;
class Q_CORE_EXPORT QTimer : public QObject
{
    Q_OBJECT
    Q_PROPERTY(bool singleShot READ isSingleShot WRITE setSingleShot BINDABLE bindableSingleShot)
    Q_PROPERTY(int interval READ interval WRITE setInterval BINDABLE bindableInterval)
    Q_PROPERTY(bool active READ isActive STORED false BINDABLE bindableActive)
public:
    explicit QTimer(QObject *parent = nullptr);
    ~QTimer();

    bool isActive() const;
    int timerId() const;

    void setInterval(int msec);
    int interval() const;

    void setSingleShot(bool singleShot);
    bool isSingleShot() const;

public Q_SLOTS:
    void start(int msec);

    void start();
    void stop();

Q_SIGNALS:
    void timeout(QPrivateSignal);

protected:
    void timerEvent(QTimerEvent *) override;

private:
    Q_DISABLE_COPY(QTimer)
    Q_DECLARE_PRIVATE(QTimer)
};

QT_END_NAMESPACE

#endif // QTIMER_H
