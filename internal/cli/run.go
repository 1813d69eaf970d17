package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdRun is a placeholder until its issue lands; its owner replaces this file.
func NewCmdRun(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "run", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("run: not built yet")
	}}
}
