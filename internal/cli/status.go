package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdStatus is a placeholder until its issue lands; its owner replaces this file.
func NewCmdStatus(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "status", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("status: not built yet")
	}}
}
