package kube

import (
	"context"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Warnings collects the warnings API servers send back with their answers
// (a deprecated API version, a value the server will not honour, a policy
// the object breaks), so that a caller can show them to the user instead of
// having client-go write them to the provider's standard error, where
// nobody reads them.
type Warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// CollectWarnings returns a context whose requests report their warnings to
// the returned collector. Clients built by the factory honour it.
func CollectWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// List returns the warnings received, each once, in the order they came.
func (w *Warnings) List() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

func (w *Warnings) add(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.list, text) {
		w.list = append(w.list, text)
	}
}

// contextWarnings hands a response's warnings to the collector of the
// request's context, and logs them when there is none.
type contextWarnings struct{}

func (contextWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	// 299 is the only code the API server sends; others are not warnings
	// meant for the user.
	if code != 299 || text == "" {
		return
	}
	if w, ok := ctx.Value(warningsKey{}).(*Warnings); ok {
		w.add(text)
		return
	}
	tflog.Warn(ctx, "the API server warns", map[string]any{"warning": text})
}
