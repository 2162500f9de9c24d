package provider

// Version 2 of the federated object and the application shows `rendered`
// by object: the manifest its clusters share, once, and how each cluster's
// differs. Version 1 held one full copy per cluster.
const renderedByObjectVersion = 2

// renderedParts describes the attributes of one object's rendering. They
// are an object type rather than nested attributes: Terraform before 1.9.3
// crashes generating configuration (plan -generate-config-out) for a
// resource with a computed nested attribute.
const renderedParts = "`manifest` is the canonical JSON of the object as most of its clusters receive it (planned) or hold it " +
	"(in state); `clusters` lists the clusters that receive or hold it, sorted; `differences` holds, for each of those " +
	"whose object is not `manifest`, a JSON Patch (RFC 6902) that turns `manifest` into it, or, when a patch would be " +
	"longer, the whole object, or an empty string for a cluster whose write was cut off, which the next refresh reads " +
	"back; it is null when every cluster receives `manifest`."
