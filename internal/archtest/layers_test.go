package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mirage-hpc/mirage"

// layers lists the top-level packages, lowest first. A package may import
// packages of lower layers, its own subpackages' parents, and internal/.
var layers = map[string]int{
	"trace": 0, "ingest": 1, "sim": 1, "features": 2, "analyze": 2, "train": 3,
	"evaluate": 4, "advise": 4, "reports": 5, "pipelines": 6, "cmd": 7,
}

// forbidden lists third-party imports a library layer must not use.
var forbidden = map[string][]string{
	"trace":  {"github.com/spf13/", "github.com/apache/arrow"},
	"ingest": {"github.com/spf13/"},
	"sim":    {"github.com/spf13/"},
}

func top(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	return strings.SplitN(rel, "/", 2)[0]
}

func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json", module+"/...").Output()
	if err != nil {
		t.Skipf("skipping: go list failed: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		from := top(p.ImportPath)
		lf, ok := layers[from]
		if !ok {
			continue // internal/ and the module root
		}
		checked++
		for _, imp := range p.Imports {
			for _, bad := range forbidden[from] {
				if strings.HasPrefix(imp, bad) {
					t.Errorf("%s imports %s, which layer %q must not use", p.ImportPath, imp, from)
				}
			}
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := top(imp)
			lt, ok := layers[to]
			if !ok || strings.HasPrefix(p.ImportPath, imp+"/") {
				continue // internal/, or a subpackage importing its parent
			}
			if lt > lf || (lt == lf && to != from) {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must go down", p.ImportPath, lf, imp, lt)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no packages checked")
	}
}
