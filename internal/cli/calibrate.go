package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// NewCmdCalibrate is a placeholder until its issue lands; its owner replaces this file.
func NewCmdCalibrate(io *IOStreams) *cobra.Command {
	return &cobra.Command{Use: "calibrate", Short: "(not built yet)", RunE: func(*cobra.Command, []string) error {
		return errors.New("calibrate: not built yet")
	}}
}
