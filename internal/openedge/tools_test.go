package openedge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgvBuilders(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"proutil", ProutilArgs("s2k", "describe"), []string{"s2k", "-C", "describe"}},
		{"dump default", DumpArgs("/db/s2k", "customer", "/dump", DumpOptions{}),
			[]string{"/db/s2k", "-C", "dump", "customer", "/dump"}},
		{"dump primary via -1", DumpArgs("s2k", "customer", "d", DumpOptions{Index: -1}),
			[]string{"s2k", "-C", "dump", "customer", "d"}},
		// The blog example of openedge-formats.md §2.3, reordered as the syntax lists it.
		{"dump threaded", DumpArgs("DB", "cra", "/dir", DumpOptions{Index: 294, Thread: true, Threadnum: 10, Dumplist: "/p/cra.dumplist"}),
			[]string{"DB", "-C", "dump", "cra", "/dir", "-index", "294", "-thread", "1", "-threadnum", "10", "-dumplist", "/p/cra.dumplist"}},
		{"dump threadnum implies thread", DumpArgs("DB", "t", "d", DumpOptions{Threadnum: 4}),
			[]string{"DB", "-C", "dump", "t", "d", "-thread", "1", "-threadnum", "4"}},
		{"names are single argv elements", DumpArgs("my db", `sql"usr.Or der`, "/dump dir/$(x)", DumpOptions{}),
			[]string{"my db", "-C", "dump", `sql"usr.Or der`, "/dump dir/$(x)"}},
		{"load plain", LoadArgs("s2k", "/dump/customer.bd", LoadOptions{}),
			[]string{"s2k", "-C", "load", "/dump/customer.bd"}},
		{"load everything", LoadArgs("s2k", "/dump/customer.bd", LoadOptions{BuildIndexes: true, Dumplist: "/dump/c.lst", TB: 64, TM: 32, TempDir: "/sort", NoIntegrity: true, Raw: true}),
			[]string{"s2k", "-C", "load", "/dump/customer.bd", "build", "indexes", "-dumplist", "/dump/c.lst", "-TB", "64", "-TM", "32", "-T", "/sort", "-i", "-r"}},
		{"idxbuild zero value is all", IdxbuildArgs("s2k", IdxbuildTarget{}, IdxbuildParams{}),
			[]string{"s2k", "-C", "idxbuild", "all"}},
		// KB 000030594's command line, argument for argument.
		{"idxbuild KB 000030594", IdxbuildArgs("dbname", IdxbuildActive(), IdxbuildParams{SG: 16, TB: 64, TM: 32, TMB: 128, B: 16000, TF: 88, Threadnum: 6, Mergethreads: 4, Datascanthreads: 4, Pfactor: 90, Rusage: true}),
			[]string{"dbname", "-C", "idxbuild", "activeindexes", "-SG", "16", "-TB", "64", "-TM", "32", "-TMB", "128", "-B", "16000", "-TF", "88", "-thread", "1", "-threadnum", "6", "-mergethreads", "4", "-datascanthreads", "4", "-pfactor", "90", "-rusage"}},
		{"idxbuild table, one thread", IdxbuildArgs("s2k", IdxbuildTable("PUB.Order Line"), IdxbuildParams{Threadnum: 1, TempDir: "/tmp/sort", Z: true}),
			[]string{"s2k", "-C", "idxbuild", "table", "PUB.Order Line", "-threadnum", "1", "-T", "/tmp/sort", "-z"}},
		{"idxbuild area with .srt", IdxbuildArgs("s2k", IdxbuildArea("Cust Index"), IdxbuildParams{SortFile: "s2k.srt"}),
			[]string{"s2k", "-C", "idxbuild", "area", "Cust Index", "-SS", "s2k.srt"}},
		{"idxbuild inactive", IdxbuildArgs("s2k", IdxbuildInactive(), IdxbuildParams{}),
			[]string{"s2k", "-C", "idxbuild", "inactiveindexes"}},
		{"idxbuild all", IdxbuildArgs("s2k", IdxbuildAll(), IdxbuildParams{}), []string{"s2k", "-C", "idxbuild", "all"}},
		{"tabanalys", TabanalysArgs("s2k", false, "ignored"), []string{"s2k", "-C", "tabanalys"}},
		{"tabanalys csoutput", TabanalysArgs("s2k", true, "/out/s2k"),
			[]string{"s2k", "-C", "tabanalys", "-csoutput", "-csfilePrefix", "/out/s2k"}},
		{"describe", DescribeArgs("s2k"), []string{"s2k", "-C", "describe"}},
		{"busy", BusyArgs("s2k"), []string{"s2k", "-C", "busy"}},
		{"holder", HolderArgs("s2k"), []string{"s2k", "-C", "holder"}},
		{"truncate bi", TruncateBIArgs("s2k", 16384, 16), []string{"s2k", "-C", "truncate", "bi", "-bi", "16384", "-biblocksize", "16"}},
		{"truncate bi defaults", TruncateBIArgs("s2k", 0, 0), []string{"s2k", "-C", "truncate", "bi"}},
		{"truncate area", TruncateAreaArgs("s2k", "Area 8"), []string{"s2k", "-C", "truncate", "area", "Area 8"}},
		{"tablemove", TablemoveArgs("testdb", "customer", "Area 8", "Area 9"),
			[]string{"testdb", "-C", "tablemove", "customer", "Area 8", "Area 9"}},
		{"tablemove no index area", TablemoveArgs("testdb", "customer", "Area 8", ""),
			[]string{"testdb", "-C", "tablemove", "customer", "Area 8"}},
		{"prostrct create", ProstrctCreateArgs("db", "db.st", 8192), []string{"create", "db", "db.st", "-blocksize", "8192"}},
		{"prostrct create default", ProstrctCreateArgs("db", "db.st", 0), []string{"create", "db", "db.st"}},
		{"prostrct list", ProstrctListArgs("db", ""), []string{"list", "db"}},
		{"prostrct list to file", ProstrctListArgs("db", "out.st"), []string{"list", "db", "out.st"}},
		{"procopy", ProcopyArgs("/dlc/empty8", "/db/new"), []string{"/dlc/empty8", "/db/new"}},
		{"proserve", ProserveArgs("s2k", "-B", "100000", "-S", "20000"), []string{"s2k", "-B", "100000", "-S", "20000"}},
		{"proshut", ProshutArgs("s2k"), []string{"s2k", "-by"}},
		{"_progres", ProgresArgs("s2k", "count.p", "customer,order"),
			[]string{"-b", "-db", "s2k", "-p", "count.p", "-param", "customer,order"}},
		{"_progres without param", ProgresArgs("s2k", "x.p", ""), []string{"-b", "-db", "s2k", "-p", "x.p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
	assert.Equal(t, "table PUB.x", IdxbuildTable("PUB.x").String())
}

func TestDumpSpecifiedArgs(t *testing.T) {
	got, err := DumpSpecifiedArgs("s2k", "/dump", DumpSpecified{Table: "order", Field: "order-date", Op1: "gt", Low: "03-13-2015"})
	require.NoError(t, err)
	assert.Equal(t, []string{"s2k", "-C", "dumpspecified", "order.order-date", "GT", "03-13-2015", "/dump"}, got)

	got, err = DumpSpecifiedArgs("s2k", "/dump", DumpSpecified{Table: "order", Field: "num", Op1: "GE", Low: "1", Op2: "lt", High: "1000", PreferIndex: "order-num"})
	require.NoError(t, err)
	assert.Equal(t, []string{"s2k", "-C", "dumpspecified", "order.num", "GE", "1", "AND", "LT", "1000", "/dump", "-preferidx", "order-num"}, got)

	_, err = DumpSpecifiedArgs("s2k", "/d", DumpSpecified{Table: "t", Field: "f", Op1: "BETWEEN", Low: "1"})
	assert.ErrorContains(t, err, `operator "BETWEEN"`)
	_, err = DumpSpecifiedArgs("s2k", "/d", DumpSpecified{Table: "t", Field: "f", Op1: "EQ", Low: "1", High: "2"})
	assert.ErrorContains(t, err, `operator ""`)
	_, err = DumpSpecifiedArgs("s2k", "/d", DumpSpecified{Table: "t", Op1: "EQ"})
	assert.ErrorContains(t, err, "table and field are required")
}

func TestBusyAndHolderState(t *testing.T) {
	for exit, want := range map[int]DBUse{0: DBNotInUse, 6: DBInUse, 64: DBStarting} {
		got, err := BusyState(exit)
		require.NoError(t, err)
		assert.Equal(t, want, got, "busy %d", exit)
	}
	for exit, want := range map[int]DBUse{0: DBNotInUse, 14: DBSingleUser, 16: DBMultiUser} {
		got, err := HolderState(exit)
		require.NoError(t, err)
		assert.Equal(t, want, got, "holder %d", exit)
	}
	_, err := BusyState(1)
	assert.ErrorContains(t, err, "unexpected exit code 1")
	_, err = HolderState(6)
	assert.ErrorContains(t, err, "unexpected exit code 6")
	assert.Equal(t, "in use in multi-user mode", DBMultiUser.String())
	assert.Equal(t, "DBUse(9)", DBUse(9).String())
}

func TestParseDescribe(t *testing.T) {
	d, err := ParseDescribe(readOutput(t, "describe_11.7.out"))
	require.NoError(t, err)
	assert.Equal(t, Description{BlockSize: 8192, BIBlockSize: 8192, BIClusterKB: 512, AIBlockSize: 8192}, d)
	assert.True(t, d.AI())
	assert.False(t, d.Has(FeatureReplication))
	_, err = ParseDescribe("")
	assert.ErrorContains(t, err, "no database block")
}

// TestParseDescribeRefuses: a figure oedl compares that is not a number
// is an error naming its line, never a zero compared.
func TestParseDescribeRefuses(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"block size", "T\n\nA : x\nB : 1\nC : big\n\n S\n  a : 1\n  b : 2\n", "describe line 5: database block size \"big\""},
		{"bi cluster", "A : x\nB : 1\nC : 8192\n\n S\n  a : 8192\n  b : ?\n", "describe line 7: before-image cluster size"},
		{"no bi", "A : x\nB : 1\nC : 8192\n", "no before-imaging block after the database block of line 1"},
	} {
		_, err := ParseDescribe(tc.out)
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
}
