// Package sim is the engine of oesim, the OpenEdge simulator.
package sim

// Main is the multi-call entry point: argv[0] picks the utility. Placeholder
// until the simulator issue lands; its owner replaces this file.
func Main(args []string) int { return 2 }
