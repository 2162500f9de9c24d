// Package functions holds the provider-defined functions: each one a pure
// computation over its arguments (a replica split, one cluster's rendering
// of an object, manifests decoded into objects), with no cluster contacted.
package functions
