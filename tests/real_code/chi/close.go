// Two types with a method of one name, as io.Closer implementations have.
package chi

type A struct{}

func (a *A) Close() error { return nil }

type B struct{}

func (b *B) Close() error { return nil }

func closeBoth(a *A, b *B) {
	_ = a.Close()
	_ = b.Close()
}
