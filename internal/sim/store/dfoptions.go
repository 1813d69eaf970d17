package store

import "strings"

// The .df option lines of an object are kept as read. oesim itself
// decides only what it models (areas, index flags and components, names
// and types in the statement heads); dump_df.p writes those from the
// schema and every other option line as kept.

// optionKey is what an option line sets: its keyword, and for a trigger
// the event too (a table has one TABLE-TRIGGER line per event).
func optionKey(line string) string {
	w := strings.Fields(line)
	if len(w) == 0 {
		return ""
	}
	k := strings.ToUpper(w[0])
	if strings.HasSuffix(k, "-TRIGGER") && len(w) > 1 {
		k += " " + strings.ToUpper(w[1])
	}
	return k
}

// MergeOptions applies the option lines of an UPDATE statement to kept
// ones: a line replaces the kept line that sets the same thing, or is
// added after them. An object that has none kept (oesim gen) keeps none:
// its dump stays the Data Dictionary's defaults rather than the updated
// lines alone.
func MergeOptions(kept, update []string) []string {
	if kept == nil {
		return nil
	}
	out := append([]string(nil), kept...)
	for _, u := range update {
		k, replaced := optionKey(u), false
		for i, l := range out {
			if optionKey(l) == k {
				out[i], replaced = u, true
				break
			}
		}
		if !replaced {
			out = append(out, u)
		}
	}
	return out
}

// withOption sets the quoted value of kw in kept lines: the line that
// sets it is replaced, or one is inserted first when there is none.
func withOption(kept []string, kw, value string) []string {
	line := "  " + kw + " " + quoteDF(value)
	out := append([]string(nil), kept...)
	for i, l := range out {
		if optionKey(l) == kw {
			out[i] = line
			return out
		}
	}
	return append([]string{line}, out...)
}

// hasOption reports whether kept lines set kw.
func hasOption(kept []string, kw string) bool {
	for _, l := range kept {
		if optionKey(l) == kw {
			return true
		}
	}
	return false
}

// indexManaged are the index options oesim models: ToDF writes them from
// the schema, around the index's other kept lines.
var indexManaged = map[string]bool{"AREA": true, "UNIQUE": true, "INACTIVE": true, "PRIMARY": true, "WORD": true,
	"INDEX-FIELD": true}

func unmanagedIndexOptions(kept []string) []string {
	var out []string
	for _, l := range kept {
		if !indexManaged[optionKey(l)] {
			out = append(out, l)
		}
	}
	if out == nil && kept != nil {
		out = []string{}
	}
	return out
}

// quoteDF quotes a value as the .df does ("" for a quote).
func quoteDF(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
