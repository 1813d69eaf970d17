package fault

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Rule
	}{
		{"", nil},
		{" ; ;\n", nil},
		{"load:PUB.customer:crash-after=1000,once", []Rule{{Op: "load", Table: "PUB.customer", Kind: CrashAfter, N: 1000, Times: 1}}},
		{"dump:*:exit=3", []Rule{{Op: "dump", Table: "*", Kind: Exit, N: 3}}},
		{"dump:*:open-errno=13", []Rule{{Op: "dump", Table: "*", Kind: OpenErrno, N: 13}}},
		{"idxbuild:hang", []Rule{{Op: "idxbuild", Kind: Hang}}},
		{"dump:order:corrupt", []Rule{{Op: "dump", Table: "order", Kind: Corrupt, N: 1}}},
		{"dump:order:corrupt=7", []Rule{{Op: "dump", Table: "order", Kind: Corrupt, N: 7}}},
		{"load:*:diskfull-after=10MB,times=2", []Rule{{Op: "load", Table: "*", Kind: DiskFullAfter, N: 10 << 20, Times: 2}}},
		{"LOAD : gl* : CRASH , ONCE", []Rule{{Op: "load", Table: "gl*", Kind: CrashAfter, N: 0, Times: 1}}},
		{"procopy:delay=250ms", []Rule{{Op: "procopy", Kind: Delay, Delay: 250 * time.Millisecond}}},
		{"proserve:wait=go-1", []Rule{{Op: "proserve", Kind: Wait, Name: "go-1"}}},
		{"load:OrderLine:slow=1MB", []Rule{{Op: "load", Table: "OrderLine", Kind: Slow, N: 1 << 20}}},
		{"dump:xxrpn-amend:truncate-after=5", []Rule{{Op: "dump", Table: "xxrpn-amend", Kind: TruncateAfter, N: 5}}},
		{"*:*:hang-after=0", []Rule{{Op: "*", Table: "*", Kind: HangAfter}}},
		{"dump:*:exit=3; idxbuild:*:hang\nload:a:crash", []Rule{
			{Op: "dump", Table: "*", Kind: Exit, N: 3},
			{Op: "idxbuild", Table: "*", Kind: Hang},
			{Op: "load", Table: "a", Kind: CrashAfter},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			require.NoError(t, err)
			require.Len(t, s.Rules, len(tt.want))
			for i, w := range tt.want {
				got := *s.Rules[i]
				assert.Equal(t, i+1, got.Pos)
				got.Pos, got.Text, got.set = 0, "", nil
				assert.Equal(t, w, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"load", `rule 1 "load" (column 1): want operation[:table]:kind`},
		{"a:b:c:d", "found 4 field(s)"},
		{"dump:*:explode", `rule 1 "dump:*:explode" (column 8): unknown fault "explode"`},
		{"dump:*:exit=3; load:*:exit=x", `rule 2 "load:*:exit=x" (column 28): exit=x: want an exit code`},
		{"dump:*:exit=0", "from 1 to 255"},
		{"dump:*:open-errno=0", "want an errno from 1 to 255"},
		{"dump:*:exit", "exit needs an argument"},
		{"dump:*:hang=3", "hang takes no argument"},
		{"load:*:crash-after=-1", "want a number of records"},
		{"load:*:crash-after=ten", "want a number of records"},
		{"dump:*:corrupt=0", "counted from 1"},
		{"load:*:diskfull-after=10XB", `unknown unit "XB"`},
		{"load:*:delay=soon", "want a duration"},
		{"proserve:wait=../x", "want a file name"},
		{"proserve:wait", "needs an argument"},
		{"load:*:slow=0", "want bytes a second"},
		{"load:*:crash,twice", `unknown modifier "twice"`},
		{"load:*:crash,times=0", "times=N with N from 1"},
		{"load:*:crash,", "empty modifier"},
		{"lo ad:*:crash", "operation \"lo ad\""},
		{"load:a[b]:crash", `table "a[b]"`},
		{"load:.x:crash", `table ".x"`},
		{"load:a.b.c:crash", `table "a.b.c"`},
		{"  ;  load:*:boom", `rule 1 "load:*:boom" (column 13)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestFromEnvNamesTheVariable(t *testing.T) {
	t.Setenv(Env, "dump:*:boom")
	_, err := FromEnv()
	assert.ErrorContains(t, err, "OESIM_FAULTS: rule 1")

	t.Setenv(Env, "")
	s, err := FromEnv()
	require.NoError(t, err)
	assert.Nil(t, s.For("proutil", "dump", "customer"))
}

func TestStateDir(t *testing.T) {
	t.Setenv("OESIM_STATE", "")
	t.Setenv("DLC", "/opt/dlc")
	assert.Equal(t, "/opt/dlc/.oesim", StateDir())
	t.Setenv("OESIM_STATE", "/tmp/st")
	assert.Equal(t, "/tmp/st", StateDir())
	t.Setenv("OESIM_STATE", "")
	t.Setenv("DLC", "")
	assert.Equal(t, "", StateDir())
}

func TestFor(t *testing.T) {
	s, err := Parse("load:PUB.Customer:crash-after=10; dump:order:exit=4; dump:gl*:hang; idxbuild:*:exit=5; procopy:delay=1s; load:*:exit=6")
	require.NoError(t, err)
	tests := []struct {
		utility, qualifier, table string
		want                      int // rule position, 0 = none
	}{
		{"proutil", "load", "customer", 1},
		{"proutil", "load", "PUB.CUSTOMER", 1},
		{"proutil", "load", "sales.customer", 6}, // another owner
		{"proutil", "load", "order", 6},
		{"proutil", "dump", "Order", 2},
		{"proutil", "dump", "PUB.order", 2},
		{"proutil", "dump", "gltr_hist", 3},
		{"proutil", "dump", "customer", 0},
		{"proutil", "idxbuild", "", 4}, // idxbuild all: "*" matches no table
		{"proutil", "idxbuild", "item", 4},
		{"procopy", "", "", 5},
		{"proutil", "load", "", 6}, // "*" also matches a run without a table
		{"proutil", "dump", "", 0}, // a named table needs a table
		{"proutil", "tabanalys", "", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.qualifier, "/", tt.table), func(t *testing.T) {
			r := s.For(tt.utility, tt.qualifier, tt.table)
			if tt.want == 0 {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, tt.want, r.Pos)
		})
	}
	assert.Equal(t, 6, s.ForKind("proutil", "load", "customer", Exit).Pos)
	assert.Nil(t, s.ForKind("proutil", "load", "customer", Hang))
	var none *Set
	assert.Nil(t, none.For("proutil", "load", "x"))
}

func TestStringRoundTrips(t *testing.T) {
	s, err := Parse("LOAD:PUB.customer:crash-after=1000,once; dump:*:exit=3; idxbuild:hang; dump:o:corrupt; dump:o:corrupt=3;" +
		"load:*:diskfull-after=1.5K,times=2; x:delay=1m30s; a:crash")
	require.NoError(t, err)
	for _, r := range s.Rules {
		again, err := Parse(r.String())
		require.NoError(t, err, r.String())
		require.Len(t, again.Rules, 1)
		assert.Equal(t, r.String(), again.Rules[0].String())
	}
	assert.Equal(t, "load:PUB.customer:crash-after=1000,once", s.Rules[0].String())
	assert.Equal(t, "load:*:diskfull-after=1536,times=2", s.Rules[5].String())
}

func TestFireCountsInStateDir(t *testing.T) {
	dir := t.TempDir()
	s, err := Parse("load:*:crash,once; dump:*:exit=3,times=2; idxbuild:hang")
	require.NoError(t, err)
	s.StateDir = filepath.Join(dir, "state") // created on first use

	fires := func(r *Rule, n int) (got []bool) {
		for range n {
			ok, err := r.Fire()
			require.NoError(t, err)
			got = append(got, ok)
		}
		return got
	}
	assert.Equal(t, []bool{true, false, false}, fires(s.Rules[0], 3))
	assert.Equal(t, []bool{true, true, false}, fires(s.Rules[1], 3))
	assert.Equal(t, []bool{true, true, true}, fires(s.Rules[2], 3), "no limit: every time")

	// A second process (here: a second parse of the same variable) sees
	// the firings already used.
	again, err := Parse("load:*:crash,once; dump:*:exit=3,times=2; idxbuild:hang")
	require.NoError(t, err)
	again.StateDir = s.StateDir
	ok, err := again.Rules[0].Fire()
	require.NoError(t, err)
	assert.False(t, ok)

	var nilRule *Rule
	ok, err = nilRule.Fire()
	assert.False(t, ok)
	assert.NoError(t, err)
}

func TestFireWithoutStateDirCountsPerSet(t *testing.T) {
	a, err := Parse("load:*:crash,once")
	require.NoError(t, err)
	b, err := Parse("load:*:crash,once")
	require.NoError(t, err)
	for _, s := range []*Set{a, b} {
		ok, _ := s.Rules[0].Fire()
		assert.True(t, ok)
		ok, _ = s.Rules[0].Fire()
		assert.False(t, ok)
	}
}

func TestFireStateDirError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	s, err := Parse("load:*:crash,once")
	require.NoError(t, err)
	s.StateDir = filepath.Join(file, "sub")
	_, err = s.Rules[0].Fire()
	assert.ErrorContains(t, err, "fault state")
}

func TestHangNow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- HangNow(ctx) }()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

// The helper process: when OESIM_FAULT_HELPER is set the test binary plays
// an oesim utility instead of running tests.
func TestMain(m *testing.M) {
	switch os.Getenv("OESIM_FAULT_HELPER") {
	case "fire":
		s, err := FromEnv()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ok, err := s.For("proutil", "load", "customer").Fire()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Print(ok)
		os.Exit(0)
	case "crash":
		f, _ := os.Create(os.Getenv("OESIM_FAULT_FILE"))
		_, _ = f.WriteString("written before the crash\n") // no Close, no Sync
		CrashNow()
		os.Exit(0) // never reached
	}
	os.Exit(m.Run())
}

func helper(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "OESIM_FAULT_HELPER="+mode)...)
	return cmd
}

// TestOnceAcrossProcesses starts eight processes at once on the same rule:
// exactly one fires.
func TestOnceAcrossProcesses(t *testing.T) {
	state := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 8 {
		cmd := helper(t, "fire", "OESIM_FAULTS=load:customer:crash-after=10,once", "OESIM_STATE="+state)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	fired := 0
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), outs[i].String())
		ok, err := strconv.ParseBool(outs[i].String())
		require.NoError(t, err, outs[i].String())
		if ok {
			fired++
		}
	}
	assert.Equal(t, 1, fired)
}

func TestCrashNowKillsAndKeepsWrittenData(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.bd")
	cmd := helper(t, "crash", "OESIM_FAULT_FILE="+file)
	err := cmd.Run()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr)
	ws := exitErr.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled())
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "written before the crash\n", string(data))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"load:PUB.customer:crash-after=1000,once; dump:*:exit=3; idxbuild:*:hang; dump:order:corrupt; load:*:diskfull-after=10MB,times=2",
		"procopy:delay=1s", "a:b:c:d", "x:*:crash,times=3", ";;", "dump:o:corrupt=2,once,times=4",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if !strings.Contains(err.Error(), "rule ") {
				t.Fatalf("error without the rule: %v", err)
			}
			return
		}
		for _, r := range s.Rules {
			again, err := Parse(r.String())
			if err != nil || len(again.Rules) != 1 || again.Rules[0].String() != r.String() {
				t.Fatalf("%q -> %q does not read back: %v", r.Text, r.String(), err)
			}
			_ = s.For("proutil", "load", "PUB.customer")
		}
	})
}

// BenchmarkFor is the cost of looking up the rule for one utility call.
func BenchmarkFor(b *testing.B) {
	s, err := Parse("load:PUB.customer:crash-after=1000,once; dump:*:exit=3; idxbuild:*:hang; dump:order:corrupt; load:*:diskfull-after=10MB,times=2")
	require.NoError(b, err)
	for b.Loop() {
		_ = s.For("proutil", "dump", "PUB.gltr_hist")
	}
}

// TestBlockedProcessWaitsForItsKill runs HangNow (with a context never
// done) and CrashNow, which waits with it for its SIGKILL to land, as the
// only goroutine of a small program, as in an oesim utility. The test
// binary cannot play that program: the testing package keeps timers that
// hide the problem. Blocking with nothing left to wake the program (select
// {}, a receive from a nil channel) lets Go's runtime end it with "all
// goroutines are asleep - deadlock!" and exit status 2, which oedl would
// read as an ordinary failure instead of a hang or a crash. The window
// below only bounds how long the test watches for that wrong exit, which
// comes within microseconds of blocking; no duration is asserted.
func TestBlockedProcessWaitsForItsKill(t *testing.T) {
	exe := buildBlocker(t)
	for _, tc := range []struct {
		mode        string
		killsItself bool
	}{
		{"hang", false},
		{"hang-cancelable", false},
		{"crash", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command(exe, tc.mode)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var err error
			select {
			case err = <-exited:
				require.True(t, tc.killsItself, "the program ended by itself (%v), it must wait for its kill:\n%s", err, out.String())
			case <-time.After(500 * time.Millisecond):
				require.False(t, tc.killsItself, "CrashNow did not kill the program")
				require.NoError(t, cmd.Process.Kill())
				err = <-exited
			}
			var exitErr *exec.ExitError
			require.ErrorAs(t, err, &exitErr)
			ws := exitErr.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled(), "ended by a kill: %v\n%s", err, out.String())
			assert.Equal(t, syscall.SIGKILL, ws.Signal())
		})
	}
}

// buildBlocker builds testdata/blocker, a program that only calls HangNow
// or CrashNow.
func buildBlocker(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go tool to build testdata/blocker")
	}
	exe := filepath.Join(t.TempDir(), "blocker")
	out, err := exec.Command(goTool, "build", "-o", exe, "./testdata/blocker").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return exe
}
