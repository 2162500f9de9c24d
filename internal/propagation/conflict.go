package propagation

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Claims are conflicting fields by the field manager that holds them: a
// manager's name, then its fields as the API server writes paths
// (".data.greeting", `.spec.template.spec.containers[name="web"].image`),
// sorted.
type Claims map[string][]string

// String lists the claims manager by manager, in order:
// `"kubectl-patch": .data.a, .data.b; "other-tool": .spec.x`.
func (c Claims) String() string {
	parts := make([]string, 0, len(c))
	for _, manager := range c.Managers() {
		parts = append(parts, fmt.Sprintf("%q: %s", manager, strings.Join(c[manager], ", ")))
	}
	return strings.Join(parts, "; ")
}

// Managers are the managers that hold claims, sorted.
func (c Claims) Managers() []string {
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (c Claims) add(manager, field string) {
	fields := c[manager]
	i := sort.SearchStrings(fields, field)
	if i < len(fields) && fields[i] == field {
		return
	}
	c[manager] = append(fields[:i], append([]string{field}, fields[i:]...)...)
}

// Conflicts sorts the fields an apply conflicts on by who holds them.
type Conflicts struct {
	// Reclaimable fields are held only by update-style writers (kubectl
	// edit, patch or replace, a client's Update): changes made by hand or by
	// a controller to fields the federation set, which its apply takes back.
	Reclaimable Claims
	// Disputed fields are held by another server-side apply: another
	// declarative tool claims them, which only force_conflicts overrides.
	Disputed Claims
}

// ClassifyConflicts decides, for the causes of an apply's conflict, which
// fields can be reclaimed and which are disputed, from the live object's
// managedFields. self is the federation's own field manager, whose entries
// never count. A field is reclaimable when every other entry that holds it,
// of the manager the cause names, is an Update; a field nobody is found to
// hold is disputed, since nothing shows it is safe to take.
func ClassifyConflicts(causes []metav1.StatusCause, entries []metav1.ManagedFieldsEntry, self string) Conflicts {
	out := Conflicts{Reclaimable: Claims{}, Disputed: Claims{}}
	owned := ownedFields(entries, self)
	for _, cause := range causes {
		if cause.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		manager := managerOf(cause.Message)
		holders := holdersOf(owned, manager, cause.Field)
		if manager == "" {
			manager = holderNames(holders)
		}
		if len(holders) > 0 && allUpdates(holders) {
			out.Reclaimable.add(manager, cause.Field)
		} else {
			out.Disputed.add(manager, cause.Field)
		}
	}
	return out
}

// ownership is one managedFields entry with the paths it holds, written
// as the API server writes them in a conflict.
type ownership struct {
	entry metav1.ManagedFieldsEntry
	paths map[string]bool
}

// ownedFields reads the field sets of every entry but self's. An entry
// whose set does not parse holds nothing, which makes its fields disputed.
func ownedFields(entries []metav1.ManagedFieldsEntry, self string) []ownership {
	owned := make([]ownership, 0, len(entries))
	for _, e := range entries {
		if e.Manager == self {
			continue
		}
		paths := map[string]bool{}
		var set fieldpath.Set
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err == nil {
			set.Iterate(func(p fieldpath.Path) { paths[p.String()] = true })
		}
		owned = append(owned, ownership{entry: e, paths: paths})
	}
	return owned
}

// holdersOf returns the entries of manager (of any manager when it is
// unknown) that hold field. When none holds the path as written, a manager
// known by name answers with all its entries: its set may be recorded at
// another API version, whose paths differ.
func holdersOf(owned []ownership, manager, field string) []metav1.ManagedFieldsEntry {
	var holders, named []metav1.ManagedFieldsEntry
	for _, o := range owned {
		if manager != "" && o.entry.Manager != manager {
			continue
		}
		named = append(named, o.entry)
		if o.paths[field] {
			holders = append(holders, o.entry)
		}
	}
	if len(holders) == 0 && manager != "" {
		return named
	}
	return holders
}

func allUpdates(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationUpdate {
			return false
		}
	}
	return true
}

func holderNames(entries []metav1.ManagedFieldsEntry) string {
	var names []string
	for _, e := range entries {
		if !slices.Contains(names, e.Manager) {
			names = append(names, e.Manager)
		}
	}
	if len(names) == 0 {
		return "an unknown manager"
	}
	return strings.Join(names, ", ")
}

// managerOf is the manager a conflict's cause names: the API server writes
// `conflict with "NAME"`, followed for an Update by its API version and time.
func managerOf(message string) string {
	rest, ok := strings.CutPrefix(message, "conflict with ")
	if !ok {
		return ""
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return ""
	}
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	return name
}

// fieldConflicts returns the causes of an apply that failed because other
// managers hold fields it sets; none for any other error, a conflict on
// the resourceVersion included.
func fieldConflicts(status metav1.Status) []metav1.StatusCause {
	if status.Code != 409 || status.Details == nil {
		return nil
	}
	var causes []metav1.StatusCause
	for _, c := range status.Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			causes = append(causes, c)
		}
	}
	return causes
}

// ConflictError is an apply refused because another server-side apply
// holds fields the federation sets, on one cluster. It unwraps to the API
// server's error.
type ConflictError struct {
	Cluster string
	Object  Object
	Conflicts
	err error
}

func (e *ConflictError) Error() string {
	msg := fmt.Sprintf("%s: cluster %q: another server-side apply holds fields the template sets (%s); "+
		"set force_conflicts = true to take them over, or remove them from the template or from the other tool's configuration",
		e.Object, e.Cluster, e.Disputed)
	if len(e.Reclaimable) > 0 {
		msg += fmt.Sprintf(". Fields changed by update-style writers, which the apply would take back along with them: %s", e.Reclaimable)
	}
	return msg
}

func (e *ConflictError) Unwrap() error { return e.err }
