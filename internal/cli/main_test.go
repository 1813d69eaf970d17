package cli

import (
	"testing"

	"github.com/oedl/oedl/internal/simtest"
)

// The shared oesim binary's directory goes with the test binary.
func TestMain(m *testing.M) { simtest.Main(m) }
