// Package units reads and prints byte sizes the way a DBA types them on a
// command line: "512MB", "2GB", "1.5G", "100K", "0".
//
// Every multiple is a power of 1024, as in OpenEdge (a .st "f 1024000" is in
// KB of 1024 bytes, tabanalys prints "6.2K" for 6.2×1024). The decimal SI
// reading (1 GB = 10^9) is deliberately not offered: mixing the two in one
// tool is how a 2 GB extent limit ends up 7% short.
package units
