package member

import "testing"

func TestConnectionTLSSettings(t *testing.T) {
	base := Connection{APIEndpoint: "https://127.0.0.1:6443", CABundle: []byte("ca"), Token: "t"}

	all := base
	all.DisabledTLSValidations = []string{TLSAll}
	cfg, err := all.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Insecure || cfg.CAData != nil {
		t.Errorf(`"*" must turn verification off and drop the CA: %+v`, cfg.TLSClientConfig)
	}

	cfg, err = base.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Insecure || string(cfg.CAData) != "ca" || cfg.BearerToken != "t" {
		t.Errorf("default settings lost: %+v", cfg)
	}
}

// The pool keys a member's clients and its shared probe by connectionKey.
func TestConnectionKey_changesWithEveryPartOfTheConnection(t *testing.T) {
	base := Connection{APIEndpoint: "https://berlin.example:6443", CABundle: []byte("ca"), Token: "t",
		DisabledTLSValidations: []string{TLSSubjectName}}
	changed := map[string]func(*Connection){
		"endpoint":          func(c *Connection) { c.APIEndpoint = "https://berlin.example:7443" },
		"CA bundle":         func(c *Connection) { c.CABundle = []byte("other") },
		"token":             func(c *Connection) { c.Token = "u" },
		"certificate":       func(c *Connection) { c.ClientCertificate = []byte("cert") },
		"key":               func(c *Connection) { c.ClientKey = []byte("key") },
		"TLS checks":        func(c *Connection) { c.DisabledTLSValidations = nil },
		"proxy":             func(c *Connection) { c.ProxyURL = "http://proxy.example:3128" },
		"token moved to CA": func(c *Connection) { c.CABundle, c.Token = []byte("cat"), "" },
	}
	copyOf := func(c Connection) Connection {
		c.CABundle = append([]byte(nil), c.CABundle...)
		c.DisabledTLSValidations = append([]string(nil), c.DisabledTLSValidations...)
		return c
	}
	if connectionKey(base) != connectionKey(copyOf(base)) {
		t.Fatal("a copy of a connection is not the same connection")
	}
	for name, change := range changed {
		other := copyOf(base)
		change(&other)
		if connectionKey(base) == connectionKey(other) {
			t.Errorf("a connection with another %s is the same", name)
		}
	}
}
