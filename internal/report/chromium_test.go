package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a headless browser. Without one the test skips loudly,
// except in CI (CI=true), where a missing browser is a failure: a broken
// page must not land because the check did not run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: install it (apt-get install -y chromium) so report.html is checked in a browser")
	}
	t.Skip("!!! SKIPPED: chromium is not installed; report.html was NOT checked in a browser (apt-get install -y chromium) !!!")
	return ""
}

// runChromium runs the browser headless on file with extra flags and
// returns its stdout.
func runChromium(t *testing.T, bin, file string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}, flags...)
	args = append(args, "file://"+file)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	return stdout.Bytes()
}

// TestReportHTMLInChromium opens report.html in headless Chromium and
// checks the DOM it built: the Gantt SVG with one bar per job, the verdict,
// a row per table, the throughput chart. Then it takes a screenshot and
// checks it is a real picture.
func TestReportHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir := fixture(t, true, false)
	d, err := FromWork(dir)
	require.NoError(t, err)
	require.NoError(t, Write(dir, d))
	page := filepath.Join(dir, HTMLFile)

	dom := string(runChromium(t, bin, page, "--dump-dom"))
	require.Contains(t, dom, "</html>", "chromium rendered the page")

	gantt := between(t, dom, `<figure id="gantt">`, "</figure>")
	assert.Contains(t, gantt, "<svg")
	assert.Equal(t, len(d.Bars), strings.Count(gantt, `<rect class="bar`), "one bar per job span")
	assert.Equal(t, 21, len(d.Bars), "5 setup jobs, 5 dumps, 6 loads (one retried), 5 after the loads")
	assert.Equal(t, 1, strings.Count(gantt, `class="bar failed`), "the failed load is marked")
	assert.Positive(t, strings.Count(gantt, `class="bar critical`))

	verdict := between(t, dom, `id="verdict">`, "</div>")
	assert.Contains(t, verdict, "Verified: all 5 tables and their 1,562,090 records arrived")

	tables := between(t, dom, `<table id="tables" class="wide">`, "</table>")
	assert.Equal(t, 5, strings.Count(tables, `class="table-row`))
	assert.Contains(t, tables, "PUB.orderline")

	assert.Contains(t, between(t, dom, `<figure id="throughput">`, "</figure>"), `<path class="load"`)
	assert.NotContains(t, dom, "<script")

	png := filepath.Join(t.TempDir(), "report.png")
	runChromium(t, bin, page, "--screenshot="+png, "--window-size=1200,1600", "--hide-scrollbars")
	img, err := os.ReadFile(png)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")), "a PNG")
	assert.Greater(t, len(img), 20_000, "the screenshot has content, not a blank page")
	if dst := os.Getenv("OEDL_REPORT_SCREENSHOT"); dst != "" {
		require.NoError(t, os.WriteFile(dst, img, 0o644))
	}
}

func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	require.GreaterOrEqual(t, i, 0, "the page has %q", from)
	rest := s[i+len(from):]
	j := strings.Index(rest, to)
	require.GreaterOrEqual(t, j, 0, "%q is closed by %q", from, to)
	return rest[:j]
}
