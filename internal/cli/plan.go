package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdPlan is a placeholder until its issue lands; its owner replaces this file.
func NewCmdPlan(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "plan", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("plan: not built yet")
	}}
}
