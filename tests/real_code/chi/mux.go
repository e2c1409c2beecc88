// Cut down from go-chi/chi v5 mux.go (MIT licence); count is ours.
package chi

import "net/http"

// Mux is a simple HTTP route multiplexer.
type Mux struct {
	middlewares []func(http.Handler) http.Handler
}

// Middlewares returns a slice of middleware handler functions.
func (mx *Mux) Middlewares() Middlewares {
	return mx.middlewares
}

// Use appends a middleware handler to the Mux middleware stack.
func (mx *Mux) Use(middlewares ...func(http.Handler) http.Handler) {
	mx.middlewares = append(mx.middlewares, middlewares...)
}

func count(mx *Mux) int {
	return len(mx.Middlewares())
}
