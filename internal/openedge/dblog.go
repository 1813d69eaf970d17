package openedge

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A database's log (DB.lg) is written by every process that opens the
// database, one line per message, in one of two layouts
// (docs/decisions.md, "What OpenEdge's logs really look like"):
//
//   - since 10.1A: "[2019/01/01@14:46:51.345+0100] P-10860      T-7584  I
//     BROKER  0: (333)   Multi-user session begin." Every entry carries
//     its time with the zone and the process id ("blank for remote
//     clients", Database Administration, "OpenEdge database log file"); the
//     message number comes first, "(-----)" from a SQL server.
//   - before 10.1A (Progress 9, OpenEdge 10.0): a session's date line
//     ("                Sat Jan  4 12:25:08 2003"), then "12:25:08 BROKER
//     0: Multi-user session begin. (333)": the time of day, no date, no zone
//     and no process id (only a server's (5646) names one in its text).
//
// Both write the date line when a session begins (10.1A+ logs keep it); a
// message longer than a line goes on in a line of its own with no stamp.

// LogLineKind is what a line of a database log is.
type LogLineKind int

const (
	// LogBlank is an empty line (or only blanks).
	LogBlank LogLineKind = iota
	// LogDate is a session's date line: indented, no process id.
	LogDate
	// LogEntry is a 10.1A+ entry: its time and process id are read.
	LogEntry
	// LogOldEntry is a pre-10.1A entry: a time of day, no date, no process.
	LogOldEntry
	// LogOther is any other line: a message's continuation, a tool's
	// bookmark, bytes that are no OpenEdge layout (a torn write, NULs).
	LogOther
)

var logKindNames = [...]string{"blank", "date", "entry", "old-entry", "other"}

func (k LogLineKind) String() string { return logKindNames[k] }

// MarshalText names the kind in goldens.
func (k LogLineKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// LogLine is what oedl reads from one line of a database log.
type LogLine struct {
	Kind LogLineKind
	// At is a LogEntry's time, in its own zone.
	At time.Time `json:",omitzero"`
	// PID is a LogEntry's process; 0 when the entry leaves it blank (a
	// remote client's).
	PID int `json:",omitempty"`
	// Msg is a LogEntry's message number (0 for none or "(-----)"), or a
	// LogOldEntry's, read at the end of its line as in utility output.
	Msg int `json:",omitempty"`
}

// logEntry is the 10.1A+ stamp: the time with its zone, then "P-" and the
// process id, digits or blanks (a remote client), then the thread.
var logEntry = regexp.MustCompile(`^\[(\d{4}/\d{2}/\d{2}@\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4})\]\s+P-(\d*)\s+T-`)

// logEntryTime is the layout of the stamp's time.
const logEntryTime = "2006/01/02@15:04:05.000-0700"

// logEntryMsg is the message number after the entry's severity and
// "name nnn:" field ("I BROKER  0: (333)", "I SQLSRV2 1: (-----)").
var logEntryMsg = regexp.MustCompile(`^\S*\s+[IWFE] [^:]{0,12}: \((\d+|-+)\)`)

// logDate is a session's date line: indented, then a weekday, a month (its
// names are the language's: only the shape is read), the day, the time and
// the year.
var logDate = regexp.MustCompile(`^\s{4,}\S+\s+\S+\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\s+\d{4}\s*$`)

// logOldEntry is a pre-10.1A entry's time of day.
var logOldEntry = regexp.MustCompile(`^\d{2}:\d{2}:\d{2}\s+\S`)

// ParseLogLine reads one line of a database log (a "\r" left by a
// Windows broker's CRLF and a UTF-8 byte order mark are dropped).
func ParseLogLine(line string) LogLine {
	line = strings.TrimSuffix(line, "\r")
	line = strings.TrimPrefix(line, string(utf8BOM))
	if strings.TrimSpace(line) == "" && !strings.ContainsRune(line, 0) {
		return LogLine{Kind: LogBlank}
	}
	if m := logEntry.FindStringSubmatchIndex(line); m != nil {
		at, err := time.Parse(logEntryTime, line[m[2]:m[3]])
		if err != nil || at.Year() < 1970 {
			// a month 13, a zone +9999; a year before any clock a
			// broker runs by (0001 is Go's zero time, read as "no
			// time"): unreadable, so the killed-run check refuses
			return LogLine{Kind: LogOther}
		}
		out := LogLine{Kind: LogEntry, At: at}
		if m[4] < m[5] {
			pid, err := strconv.Atoi(line[m[4]:m[5]])
			if err != nil || pid <= 0 {
				return LogLine{Kind: LogOther}
			}
			out.PID = pid
		}
		if n := logEntryMsg.FindStringSubmatch(line[m[1]:]); n != nil {
			out.Msg, _ = strconv.Atoi(n[1]) // "(-----)": 0
		}
		return out
	}
	if logDate.MatchString(line) {
		return LogLine{Kind: LogDate}
	}
	if logOldEntry.MatchString(line) {
		out := LogLine{Kind: LogOldEntry}
		if m, ok := lineMessage(0, line); ok {
			out.Msg = m.Num
		}
		return out
	}
	return LogLine{Kind: LogOther}
}
