package run

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A source someone holds single-user is refused (exit 3) with the
// utility's own (263) line, said once: the refusal used to say it in
// oedl's words and then quote the utility's same message after it
// (new-user trial 5).
func TestRunRefusesSingleUserSourceOnce(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.single[cfg.Source] = true
	cfg.Runner = oe
	_, err := Run(context.Background(), cfg)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 1, strings.Count(err.Error(), "(263)"), err.Error())
	assert.Contains(t, err.Error(), "The database "+cfg.Source+" is in use in single-user mode. (263)")
	assert.Equal(t, 1, strings.Count(err.Error(), cfg.Source), err.Error())
}
