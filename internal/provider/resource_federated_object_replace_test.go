package provider

import (
	"context"
	"reflect"
	"testing"
)

func TestReplacementNoteNamesTheObjectItReplaces(t *testing.T) {
	ctx := context.Background()
	private := fakePrivate{}
	if diags := noteReplacement(ctx, private, "configmaps/web/c", []string{"sf", "berlin"}); diags.HasError() {
		t.Fatal(diags)
	}
	staying, ok := replacedBy(ctx, private, "configmaps/web/c")
	if !ok || !reflect.DeepEqual(staying, []string{"sf", "berlin"}) {
		t.Errorf("same object: got %v, %v; want the planned clusters", staying, ok)
	}
	if _, ok := replacedBy(ctx, private, "configmaps/web/other"); ok {
		t.Error("a note for another object turned a delete into a replacement")
	}
	forgetReplacement(ctx, private)
	if _, ok := replacedBy(ctx, private, "configmaps/web/c"); ok {
		t.Error("a forgotten note still counts")
	}
	private[replacementKey] = []byte(`"not an object"`)
	if _, ok := replacedBy(ctx, private, "configmaps/web/c"); ok {
		t.Error("a malformed note counts")
	}
}
