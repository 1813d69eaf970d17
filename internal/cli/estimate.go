package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdEstimate is a placeholder until its issue lands; its owner replaces this file.
func NewCmdEstimate(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "estimate", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("estimate: not built yet")
	}}
}
