/* From libuv src/unix/kqueue.c (MIT licence), cut down: the event loop's POLLPRI branch. */
static void uv__kqueue_revents(uv__io_t* w, struct kevent* ev) {
  int revents;

  revents = 0;
  if (ev->filter == EVFILT_READ) {
    if (w->pevents & POLLIN)
      revents |= POLLIN;
  }

      if (ev->filter == EV_OOBAND) {
        if (w->pevents & UV__POLLPRI)
          revents |= UV__POLLPRI;
      }

  w->cb(w, revents);
}

static int uv__kqueue_next(void) {
  return 0;
}
