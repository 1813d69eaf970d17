package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdDemo is a placeholder until its issue lands; its owner replaces this file.
func NewCmdDemo(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "demo", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("demo: not built yet")
	}}
}
