package objectset

import (
	"context"
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// Recorded is one object of an application as the host records it, for an
// import: the object's type, where it lives, its template as JSON and its
// record (placement, overrides, deletion policy).
type Recorded struct {
	Type            registry.FederatedType
	Namespace, Name string
	Template        string
	Record          registry.FederatedObject
}

// ApplicationRecords are the host's records labelled with the application
// name, of every enabled type; an error when there is none.
func (e *Env) ApplicationRecords(ctx context.Context, name string) ([]Recorded, error) {
	reg, err := e.Registry(ctx)
	if err != nil {
		return nil, err
	}
	enabled, err := reg.Types(ctx)
	if err != nil {
		return nil, err
	}
	var out []Recorded
	for _, ft := range enabled {
		records, err := reg.ApplicationObjects(ctx, ft, name)
		if err != nil {
			return nil, err
		}
		for _, fo := range records {
			r := Recorded{Type: ft, Name: fo.Name, Record: fo}
			if ft.Target.Namespaced {
				r.Namespace = fo.Namespace
			}
			if r.Template, err = TemplateFromHost(ft, r.Namespace, r.Name, fo.Template); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the host holds no object labelled %s=%s: nothing to import", registry.ApplicationLabel, name)
	}
	return out, nil
}
