package gen

import (
	"math/rand/v2"
	"strings"
	"sync"
)

// Free text is cut from one corpus of ERP-flavoured words built once from a
// fixed seed: a text value is a substring of it (no allocation, no per-word
// work), starting on a word, so that WORD indexes see real words and the
// generator stays fast enough to stream hundreds of megabytes a second.
var (
	corpusOnce sync.Once
	corpus     string
)

const corpusSize = 1 << 18

var vocabulary = strings.Fields(`
	invoice shipment pallet carton steel bracket bolt washer gasket valve pump motor bearing
	shaft housing assembly frame panel cover seal spring clamp hose fitting flange coupling
	order line customer supplier vendor receipt return credit debit ledger account journal
	posting period fiscal budget cost center project site location warehouse bin lot serial
	quantity price discount tax freight duty currency exchange rate payment terms due date
	approved pending released closed cancelled hold backorder partial complete confirmed
	north south east west central region branch plant line cell shift operator inspection
	quality rework scrap yield routing operation work center setup run queue move labor
	burden overhead standard actual variance revision drawing spec tolerance coating paint
	blue red green black white grey silver zinc chrome brass copper aluminium plastic rubber
	small medium large heavy light metric imperial box case each kit set pack roll sheet
	please contact call email before delivery after confirm with buyer planner manager
	rush priority expedite normal deferred seasonal promo contract blanket schedule release
	the a of to and for on in at by from per via net gross new old see note ref
`)

func buildCorpus() {
	r := rand.New(rand.NewPCG(0x0ED1, 0xC0FFEE))
	var b strings.Builder
	b.Grow(corpusSize + 32)
	for b.Len() < corpusSize {
		w := vocabulary[skewed(r, int64(len(vocabulary)), 1.6)]
		switch r.IntN(12) {
		case 0:
			w = strings.ToUpper(w)
		case 1:
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if r.IntN(9) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	corpus = b.String()
}

// corpusText returns about n bytes of text (exactly n unless the cut falls
// on a blank, which is trimmed), starting at a word.
func corpusText(r *rand.Rand, n int) string {
	corpusOnce.Do(buildCorpus)
	if n <= 0 {
		return ""
	}
	if n > len(corpus)/2 {
		n = len(corpus) / 2
	}
	o := r.IntN(len(corpus) - n - 16)
	for corpus[o] != ' ' {
		o++
	}
	o++
	s := corpus[o : o+n]
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '.') {
		s = s[:len(s)-1]
	}
	return s
}
