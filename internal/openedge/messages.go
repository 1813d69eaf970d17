package openedge

import (
	"strconv"
	"strings"
)

// Message numbers oedl keys on (openedge-formats.md §0, §2-§8). The numbers
// are stable across releases; the wording is not, so no code in oedl
// should match on the text.
const (
	MsgCannotOpen      = 43  // ** Cannot find or open file %s, errno = %i.
	MsgInUseSingle     = 263 // ** The database %s is in use in single-user mode.
	MsgInUseMulti      = 276 // ** The database %s is in use in multi-user mode.
	MsgLastNoIntegrity = 509 // ** The last session was run with the no integrity (-i) parameter. (KB P16747)
	MsgCannotRepair    = 510 // ** Your database cannot be repaired. You must restore a backup copy. (KB P16747)
	MsgNoIntegrity     = 512 // ** This session is being run with the no-integrity (-i) option.
	// MsgUserLimit: a served database refused a connection, its broker's
	// -n (Number of Users) reached: ** The server or the system has no
	// more resources. Try a larger -n. (748). The connection was denied
	// before anything was read or written (docs.progress.com, "Connection
	// denials when the user count is exceeded"; KB P11340: every client,
	// utility and helper process counts against -n).
	MsgUserLimit         = 748
	MsgIdxbuildAborted   = 651   // Index reconstruction utility was aborted. Rerun it to completion.
	MsgDBCopied          = 1365  // procopy success: Database copied from %s.
	MsgNoServer          = 1423  // There is no server for database %s.
	MsgIndexDeactivated  = 1515  // load build indexes: Index "%s" was deactivated.
	MsgAIEnabled         = 1525  // You cannot perform this operation with after-imaging or 2phase enabled
	MsgBrokerStarted     = 5644  // proserve: Started for %s using %s address %s, pid %d.
	MsgShutdownExecuting = 1613  // [MEM] Shutdown is executing.
	MsgShutdownComplete  = 1614  // [MEM] Shutdown complete.
	MsgBIClusterSize     = 1620  // Before-image cluster size set to %d kb.
	MsgOnlineAnalysis    = 2486  // [Warning] database in use - reported statistics are approximations.
	MsgNoXBFile          = 2786  // Can't find selected index list file .xb; assuming ALL.
	MsgBackupComplete    = 3740  // probkup success
	MsgBIBlockSize       = 3781  // Before-image block size set to %d kb (%d bytes).
	MsgDumpCreated       = 6203  // Binary Dump created on %s / from database %s. (two lines)
	MsgLoadStarting      = 6204  // Loading table %s, Table number %d / starting with record %d, section %d.
	MsgDumpComplete      = 6254  // Binary Dump complete.
	MsgLoadComplete      = 6256  // Binary Load complete.
	MsgCopying           = 6715  // procopy: Copying %s to %s...
	MsgCopyStarted       = 6718  // procopy: Started writing data blocks.
	MsgBlocksCopied      = 6720  // procopy: %d blocks copied.
	MsgCopyDone          = 6722  // procopy: ...Copy complete.
	MsgTruncateBIFirst   = 6953  // You must use the proutil truncate bi command before doing a remove.
	MsgRemoveComplete    = 6968  // prostrct remove success
	MsgIdxbuildScan      = 8367  // Phase 1, processing block number %d of %d in area %d.
	MsgIndexActivated    = 8830  // idxbuild: Index %d ( %s, %s ): activated.
	MsgIndexOff          = 8831  // idxbuild: Index %d ( %s, %s ): de-activated.
	MsgSortFileAt        = 11443 // Temporary sort file at: %s will use the available disk space.
	MsgIdxbuildArea      = 11463 // Processing area %d : (idxbuild, one area at a time)
	MsgIndexesRebuilt    = 11465 // %d indexes were rebuilt.
	MsgSortSpaceUsed     = 11480 // Temporary sort file at %s used up %dK of disk space.
	MsgAreaSortSpace     = 11483 // A total of %dK of temporary sort disk space was used for area %d.
	MsgStructAddFailed   = 12867 // prostrct add FAILED.
	MsgRepairComplete    = 13485 // prostrct repair success
	MsgDumpedRecords     = 13932 // Dumped %d records.
	MsgIdxbuildThreads   = 13942 // Idxbuild is running with threads, the maximum number of threads is %d.
	MsgDumpMaxThreads    = 14774 // Maximum number of threads running is %d.
	MsgDumpThreads       = 14776 // Binary dump started %d threads.
	MsgLoadedRecords     = 15167 // Loaded %d records.
	MsgIdxbuildParams    = 16141 // TMB value is %d, TM value is %d, SG value is %d, packing factor is %d.
	MsgAreaRebuilt       = 16171 // %d indexes were rebuilt in area %d.Total elapsed time:%.3f
	MsgBuildingIndex     = 16757 // Building index %d (%s) of group %d
	MsgIdxbuildScanners  = 16758 // Idxbuild is running with %d data scan threads and %d merge threads ...
	MsgDumpUsingIndex    = 17813 // Using index %s (%d) for dump of table %s.
	MsgDumpBracket       = 17816 // Thread %d dumped / %d records for bracket %d.
)

// DefaultBrokerUsers is a broker's -n (Number of Users) when proserve is
// given none: past it, connections are refused with MsgUserLimit
// (Startup Command and Parameter Reference, "Number of Users (-n)":
// multi-user default 20).
const DefaultBrokerUsers = 20

// Message is one numbered line of utility output: "... text. (NNNN)".
type Message struct {
	Num  int
	Text string // the line without the "(NNNN)" and a leading "** "
	Line int    // 1-based line in the output
}

// String prints the message the way the utility did.
func (m Message) String() string {
	return m.Text + " (" + strconv.Itoa(m.Num) + ")"
}

// ScanMessages returns every line of out that ends with a message number,
// in order. A message that spans two lines (17816 does) is reported on its
// last line, which is the one carrying the number.
func ScanMessages(out string) []Message {
	var msgs []Message
	forEachLine(out, func(n int, line string) bool {
		if m, ok := lineMessage(n, line); ok {
			msgs = append(msgs, m)
		}
		return true
	})
	return msgs
}

// HasMessage reports whether a line of out ends with message num. Unlike a
// plain strings.Contains(out, "(43)") it does not match a number that only
// appears inside a path or a count.
func HasMessage(out string, num int) bool {
	found := false
	needle := "(" + strconv.Itoa(num) + ")"
	if !strings.Contains(out, needle) {
		return false
	}
	forEachLine(out, func(n int, line string) bool {
		if m, ok := lineMessage(n, line); ok && m.Num == num {
			found = true
		}
		return !found
	})
	return found
}

// FindMessage returns the first message num in out.
func FindMessage(out string, num int) (Message, bool) {
	var msg Message
	found := false
	forEachLine(out, func(n int, line string) bool {
		if m, ok := lineMessage(n, line); ok && m.Num == num {
			msg, found = m, true
		}
		return !found
	})
	return msg, found
}

// forEachLine calls fn with each line (1-based, "\r\n" tolerated) until fn
// returns false. It does not allocate.
func forEachLine(out string, fn func(n int, line string) bool) {
	for n := 1; out != ""; n++ {
		line, rest, _ := strings.Cut(out, "\n")
		out = rest
		if !fn(n, strings.TrimSuffix(line, "\r")) {
			return
		}
	}
}

// lineMessage recognises "text (NNNN)" at the end of a line.
func lineMessage(n int, line string) (Message, bool) {
	line = strings.TrimRight(line, " \t")
	if len(line) < 3 || line[len(line)-1] != ')' {
		return Message{}, false
	}
	open := strings.LastIndexByte(line, '(')
	if open < 0 {
		return Message{}, false
	}
	// Message numbers have no leading zero; "(0)" and "(007)" are text.
	digits := line[open+1 : len(line)-1]
	if !allDigits(digits) || digits[0] == '0' || len(digits) > 9 {
		return Message{}, false
	}
	num, _ := strconv.Atoi(digits)
	text := strings.TrimSpace(line[:open])
	text = strings.TrimSpace(strings.TrimPrefix(text, "**"))
	return Message{Num: num, Text: text, Line: n}, true
}

// LineMessage recognises one line of a utility's output as it comes:
// "text (NNNN)" at the end of the line.
func LineMessage(line string) (Message, bool) { return lineMessage(0, line) }
