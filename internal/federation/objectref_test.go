package federation

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSelectListed(t *testing.T) {
	objects := []Key{
		{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "settings"},
		{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "flags"},
		{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"},
	}
	listed, err := SelectListed([]ObjectRef{{Kind: "ConfigMap", Name: "flags"}, {Kind: "Deployment", Name: "web"}}, objects)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, true}; !slices.Equal(listed, want) {
		t.Errorf("listed %v, want %v", listed, want)
	}
	_, err = SelectListed([]ObjectRef{{Kind: "ConfigMap", Name: "flags"}, {Kind: "ConfigMap", Name: "missing"}}, objects)
	var e *ListedObjectError
	if !errors.As(err, &e) || e.Index != 1 || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a ref to no object: %v, want an error for element 1 naming it", err)
	}
}
