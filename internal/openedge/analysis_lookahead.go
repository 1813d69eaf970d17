package openedge

import "bufio"

// lineSource hands the parser the report's lines one at a time and lets it
// look at the lines after the current one: a heading a message file
// translated is told by what follows it (docs/formats-analysis.md,
// "Sections by structure"). Only the few lines looked at are held.
type lineSource struct {
	sc    *bufio.Scanner
	ahead []string // lines read from sc but not handed out yet
	done  bool
}

func (s *lineSource) next() (string, bool) {
	if len(s.ahead) > 0 {
		l := s.ahead[0]
		s.ahead[0] = ""
		s.ahead = s.ahead[1:]
		return l, true
	}
	if s.done || !s.sc.Scan() {
		s.done = true
		return "", false
	}
	return s.sc.Text(), true
}

// peek returns the i-th line after the current one (0 is the next), with a
// capture's times removed.
func (s *lineSource) peek(i int) (string, bool) {
	for len(s.ahead) <= i {
		if s.done || !s.sc.Scan() {
			s.done = true
			return "", false
		}
		s.ahead = append(s.ahead, s.sc.Text())
	}
	return stripLineTime(s.ahead[i]), true
}
