package lab

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// configFile is the YAML read by ReadConfigFile:
//
//	mode: full            # or plain: kube-apiservers only
//	clusters:
//	- name: host          # the first cluster is the host; it has no nodes
//	- name: san-francisco
//	  region: us-west
//	  nodes:
//	  - {count: 3, cpu: 4, memory: 16Gi, pods: 110}
//	- name: berlin        # region and nodes default to DefaultMember's
type configFile struct {
	Mode     string              `json:"mode,omitempty"`
	Clusters []configFileCluster `json:"clusters"`
}

type configFileCluster struct {
	Name   string     `json:"name"`
	Region string     `json:"region,omitempty"`
	Nodes  []NodePool `json:"nodes,omitempty"`
}

// ReadConfigFile reads a lab configuration file into the Mode, Clusters
// and Members of a Config; the caller adds the rest. Unknown fields are
// errors, so a misspelt key does not silently fall back to a default.
func ReadConfigFile(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading the lab configuration: %w", err)
	}
	cfg, err := parseConfigFile(b)
	if err != nil {
		return Config{}, fmt.Errorf("lab configuration %s: %w", path, err)
	}
	return cfg, nil
}

func parseConfigFile(b []byte) (Config, error) {
	var f configFile
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return Config{}, err
	}
	cfg := Config{Mode: f.Mode, Members: map[string]Member{}}
	for i, c := range f.Clusters {
		cfg.Clusters = append(cfg.Clusters, c.Name)
		if i == 0 {
			if c.Region != "" || len(c.Nodes) > 0 {
				return Config{}, fmt.Errorf("cluster %s is the host (the first cluster): it has no region or nodes", c.Name)
			}
			continue
		}
		m := DefaultMember(c.Name)
		if c.Region != "" {
			m.Region = c.Region
		}
		if c.Nodes != nil {
			m.Nodes = c.Nodes
		}
		if _, err := expandNodes(c.Name, m); err != nil {
			return Config{}, err
		}
		cfg.Members[c.Name] = m
	}
	if err := validateClusterNames(cfg.Clusters); err != nil {
		return Config{}, err
	}
	if err := validateMode(cfg.Mode); err != nil {
		return Config{}, err
	}
	return cfg, nil
}
