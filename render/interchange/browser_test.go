package interchange_test

import (
	"encoding/base64"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// need fails under CI=true, where .ci/run installs every tool, and skips
// elsewhere.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s missing in CI (.ci/run installs it): %v", what, err)
	}
	t.Skipf("%s missing: %v", what, err)
}

// browserTools finds headless chromium and speedscope's static build
// (npm package speedscope, installed by .ci/run under
// $HOME/.cache/hpcfs-speedscope, or $HPCFS_SPEEDSCOPE).
func browserTools(t *testing.T) (chromium, speedscope string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		need(t, "chromium", err)
	}
	dir := os.Getenv("HPCFS_SPEEDSCOPE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "hpcfs-speedscope", "node_modules", "speedscope")
	}
	speedscope = filepath.Join(dir, "dist", "release", "index.html")
	if _, err := os.Stat(speedscope); err != nil {
		need(t, "speedscope", err)
	}
	return chromium, speedscope
}

// runChromium runs one headless chromium with a fresh profile directory.
func runChromium(t *testing.T, chromium string, args ...string) []byte {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--allow-file-access-from-files",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000"}
	cmd := exec.Command(chromium, append(base, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return out
}

// browserLimit bounds the chromium processes running at once.
var browserLimit = make(chan struct{}, 3)

// TestSpeedscopeImports opens the folded, pprof and trace.json views of
// each format in speedscope, as its own CLI does (a script that hands the
// bytes to speedscope.loadFileFromBase64), and reads the page back:
// speedscope names the profile in the title and shows its view toolbar
// only once an import worked; an import error (an alert) is caught into
// the title.
func TestSpeedscopeImports(t *testing.T) {
	chromium, speedscope := browserTools(t)
	tmp := t.TempDir()
	// Names with control bytes and bytes that are not UTF-8 ("\x1b" and
	// "\xff" in the folded lines, as in every text view).
	hostile := filepath.Join(tmp, "callgrind.out.names")
	body := "# callgrind format\nversion: 1\nevents: Ir\nfl=(1) a.c\nfn=(1) " + testdata.BadName +
		"\n1 10\ncfn=(2) x;y\tz\ncalls=1 2\n2 5\nfn=(2)\n3 5\n"
	if err := os.WriteFile(hostile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type view struct{ source, file string }
	views := []view{
		{testdata.Corpus(t, "callgrind", "valgrind-3.19-generated", "callgrind.out.cachesim"), "flame/ir.folded"},
		{testdata.Corpus(t, "callgrind", "valgrind-3.19-generated", "callgrind.out.cachesim"), "profile.pb.gz"},
		{testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"), "flame/time_ns.folded"},
		{testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"), "profile.pb.gz"},
		{testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"), "testmeas-small-000000-000-11ac0300-5560-0/flame/cputime_ns.folded"},
		{testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"), "testmeas-small-000000-000-11ac0300-5560-0/profile.pb.gz"},
		{testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"), "trace.json"},
		{testdata.Corpus(t, "ovni", "v1-two-procs"), "trace.json"},
		{filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"), "trace.json"},          // mark bursts
		{filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"), "trace/window-1.json"}, // limit below
		{testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"), "flame/cputime_ns_sum.folded"},
		{testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"), "profile.pb.gz"},
		{testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"), "trace.json"},
		{hostile, "flame/ir.folded"},
		{testdata.Corpus(t, "otf2", "gen-mpi-rma"), "trace.json"}, // message flows (ph s/f), which speedscope skips
	}
	for i, v := range views {
		b := readView(t, v.source, v.file)
		name := "view" + strconv.Itoa(i) + "-" + filepath.Base(v.file)
		script := filepath.Join(tmp, name+".js")
		js := "window.alert = function (m) { document.title = 'IMPORT ERROR: ' + m };\n" +
			"speedscope.loadFileFromBase64(" + strconv.Quote(name) + ", " + strconv.Quote(base64.StdEncoding.EncodeToString(b)) + ");\n"
		if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(filepath.Dir(v.source))+"/"+v.file, func(t *testing.T) {
			t.Parallel()
			browserLimit <- struct{}{}
			defer func() { <-browserLimit }()
			dom := string(runChromium(t, chromium, "--dump-dom", "file://"+speedscope+"#localProfilePath="+script))
			if !strings.Contains(dom, "<title>"+name+" - speedscope</title>") || !strings.Contains(dom, "Time Order") {
				title, _, _ := strings.Cut(dom[strings.Index(dom, "<title>")+1:], "</title>")
				t.Errorf("speedscope did not import %s: title %q", v.file, title)
			}
		})
	}
}

// readView reads file of the source at path; a trace window of a trace
// split at a small limit (8000 bytes), so that one exists.
func readView(t *testing.T, path, file string) []byte {
	t.Helper()
	src := open(t, path)
	if strings.HasPrefix(file, "trace/window-") {
		src.Options.WindowLimit = 8000
	}
	return testdata.ReadFS(t, src.FS(), file)
}

// TestFlameGraphSVGRenders shows the flame graph of each format in one
// headless chromium page (one picture per 300 px band) and looks for the
// flame colours in each band of the screenshot.
func TestFlameGraphSVGRenders(t *testing.T) {
	chromium, _ := browserTools(t)
	views := []struct{ source, file string }{
		{testdata.Corpus(t, "callgrind", "valgrind-3.19-generated", "callgrind.out.cachesim"), "flame/ir.svg"},
		{testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"), "flame/time_ns.svg"},
		{testdata.Corpus(t, "hpctoolkit", "hpcrun-02.00-testvdso"), "testvdso-000000-000-007f0101-19750-0/flame/cputime_usec.svg"},
		{testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"), "flame/cputime_ns_sum.svg"},
	}
	const band = 300
	tmp := t.TempDir()
	page := "<!DOCTYPE html><html><body style=\"margin:0\">\n"
	for i, v := range views {
		b := readView(t, v.source, v.file)
		name := "g" + strconv.Itoa(i) + ".svg"
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		page += "<div style=\"height:" + strconv.Itoa(band) + "px;overflow:hidden\"><img src=\"" + name + "\" width=\"1200\"></div>\n"
	}
	html := filepath.Join(tmp, "page.html")
	if err := os.WriteFile(html, []byte(page+"</body></html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(tmp, "page.png")
	runChromium(t, chromium, "--screenshot="+shot, "--window-size=1200,"+strconv.Itoa(band*len(views)), "--hide-scrollbars", "file://"+html)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	for i, v := range views {
		flame := 0
		for y := r.Min.Y + i*band; y < r.Min.Y+(i+1)*band && y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if cr>>8 >= 200 && cg>>8 < 235 && cb>>8 < 60 {
					flame++
				}
			}
		}
		if flame < 2000 {
			t.Errorf("%s: %d flame-coloured pixels in its band of the screenshot", v.file, flame)
		}
	}
}
