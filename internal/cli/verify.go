package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdVerify is a placeholder until its issue lands; its owner replaces this file.
func NewCmdVerify(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "verify", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("verify: not built yet")
	}}
}
