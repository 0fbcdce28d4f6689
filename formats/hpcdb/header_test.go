package hpcdb_test

import (
	"bufio"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// metaOracle is the part of hpctesttool's YAML dump of meta.db before
// its context tree: the sections header.txt lists one line per entry.
type metaOracle struct {
	Meta struct {
		General struct {
			Title       string `yaml:"title"`
			Description string `yaml:"description"`
		} `yaml:"general"`
		IDNames struct {
			Names []string `yaml:"names"`
		} `yaml:"id_names"`
		Metrics struct {
			Scopes []struct {
				Name string `yaml:"scope_name"`
			} `yaml:"scopes"`
			Metrics []struct {
				Name      string `yaml:"name"`
				Summaries []struct {
					Formula string `yaml:"formula"`
					StatID  int    `yaml:"stat_metric_id"`
				} `yaml:"summaries"`
			} `yaml:"metrics"`
		} `yaml:"metrics"`
		Modules struct {
			Modules []struct {
				Path string `yaml:"path"`
			} `yaml:"modules"`
		} `yaml:"modules"`
		Files struct {
			Files []struct {
				Path string `yaml:"path"`
			} `yaml:"files"`
		} `yaml:"files"`
		Functions struct {
			Functions []struct {
				Name string `yaml:"name"`
				Line *int   `yaml:"line"`
			} `yaml:"functions"`
		} `yaml:"functions"`
	} `yaml:"meta"`
}

// readMetaOracle decodes the dump up to meta.db's context tree (the rest,
// tens of MB for the largest case, is not needed here).
func readMetaOracle(t *testing.T, dir string) metaOracle {
	t.Helper()
	p := filepath.Join(dir, "hpctesttool-dump.yaml")
	f, err := os.Open(p)
	var r io.Reader = f
	if err != nil {
		if f, err = os.Open(p + ".gz"); err != nil {
			t.Fatal(err)
		}
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	defer f.Close()
	var head strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "  context:") {
		head.WriteString(sc.Text() + "\n")
	}
	var o metaOracle
	if err := yaml.Unmarshal([]byte(head.String()), &o); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if o.Meta.General.Title == "" || len(o.Meta.Metrics.Metrics) == 0 {
		t.Fatalf("%s: no meta.db sections read", p)
	}
	return o
}

// Every section of meta.db in header.txt lists what HPCToolkit's own
// reader (hpctesttool) reads: title, identifier names, propagation
// scopes, metrics with their summaries, modules, files, functions and the
// number of contexts (summary.txt).
func TestMetaHeaderOracle(t *testing.T) {
	for _, dir := range metaCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			o := readMetaOracle(t, dir).Meta
			v := openMetaView(t, dir)
			b, err := fs.ReadFile(v.fsys, "header.txt")
			if err != nil {
				t.Fatal(err)
			}
			sec := headerSections(string(b))
			want := func(section, key, val string) {
				t.Helper()
				if got, ok := sec[section][key]; !ok || got != val {
					t.Errorf("[%s] %s = %q (present %v), want %q", section, key, got, ok, val)
				}
			}
			want("meta.db general", "title", o.General.Title)
			want("meta.db general", "description", o.General.Description)
			for k, n := range o.IDNames.Names {
				want("meta.db id_names", "kind_"+strconv.Itoa(k), n)
			}
			want("meta.db metrics", "scopes", strconv.Itoa(len(o.Metrics.Scopes)))
			for k, s := range o.Metrics.Scopes {
				if got := sec["meta.db metrics"]["scope_"+strconv.Itoa(k)]; !strings.HasPrefix(got, s.Name+" type=") {
					t.Errorf("scope_%d = %q, want scope %s", k, got, s.Name)
				}
			}
			want("meta.db metrics", "metrics", strconv.Itoa(len(o.Metrics.Metrics)))
			for k, m := range o.Metrics.Metrics {
				want("meta.db metrics", "metric_"+strconv.Itoa(k), m.Name)
			}
			stats := regexp.MustCompile(`(?m)^  summary \S+: formula=(.*) combine=\S+ stat_metric_id=(\d+)$`).FindAllStringSubmatch(string(b), -1)
			k := 0
			for _, m := range o.Metrics.Metrics {
				for _, s := range m.Summaries {
					if k >= len(stats) || stats[k][1] != s.Formula || stats[k][2] != strconv.Itoa(s.StatID) {
						t.Fatalf("summary %d of %s: header.txt has %v, want formula %q stat %d", k, m.Name, stats[min(k, len(stats)-1)], s.Formula, s.StatID)
					}
					k++
				}
			}
			want("meta.db modules", "modules", strconv.Itoa(len(o.Modules.Modules)))
			for k, m := range o.Modules.Modules {
				want("meta.db modules", "module_"+strconv.Itoa(k), m.Path)
			}
			want("meta.db files", "files", strconv.Itoa(len(o.Files.Files)))
			for k, f := range o.Files.Files {
				got := strings.TrimSuffix(sec["meta.db files"]["file_"+strconv.Itoa(k)], " (copied)")
				// hpctesttool's dump writes paths under /tmp as <tmp>
				if got != f.Path && (f.Path != "<tmp>" || !strings.HasPrefix(got, "/tmp/")) {
					t.Errorf("file_%d = %q, want %q", k, got, f.Path)
				}
			}
			want("meta.db functions", "functions", strconv.Itoa(len(o.Functions.Functions)))
			for k, f := range o.Functions.Functions {
				got := sec["meta.db functions"]["function_"+strconv.Itoa(k)]
				if f.Name != "" && !strings.HasPrefix(got, f.Name+" ") && got != f.Name {
					t.Errorf("function_%d = %q, want the name %q", k, got, f.Name)
				}
				if f.Line != nil && !strings.HasSuffix(got, ":"+strconv.Itoa(*f.Line)) {
					t.Errorf("function_%d = %q, want line %d", k, got, *f.Line)
				}
			}
			summary, err := os.ReadFile(filepath.Join(dir, "oracle-hpctesttool", "summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			n := regexp.MustCompile(`contexts \(excl\. entry points\): (\d+)`).FindSubmatch(summary)
			if n == nil {
				t.Fatal("summary.txt has no context count")
			}
			want("meta.db context", "contexts", string(n[1]))
		})
	}
}

// headerSections splits header.txt into its [sections] of key: value
// lines (the first occurrence of a key wins; indented lines are left out).
func headerSections(s string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			cur = map[string]string{}
			out[l[1:len(l)-1]] = cur
			continue
		}
		k, v, ok := strings.Cut(l, ": ")
		if cur == nil || !ok || strings.HasPrefix(l, " ") {
			continue
		}
		if _, seen := cur[k]; !seen {
			cur[k] = v
		}
	}
	return out
}
