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
