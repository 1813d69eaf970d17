// Package units reads and prints the quantities a DBA reads: byte sizes,
// rates, counts and durations. Every size, rate, count and duration oedl
// shows a person goes through it, so the same table is the same size in
// the plan, the estimate, the live screen and the report.
//
// Sizes are read the way a DBA types them on a command line ("512MB",
// "2GB", "1.5G", "100K", "0") and printed with IEC names ("512 MiB",
// "1.5 GiB"). Every multiple is a power of 1024, as in OpenEdge (a .st
// "f 1024000" is in KB of 1024 bytes, tabanalys prints "6.2K" for
// 6.2×1024). The decimal SI reading (1 GB = 10^9) is deliberately not
// offered: mixing the two in one tool is how a 2 GB extent limit ends up 7%
// short, and how "64MB" came back as "67.1 MB". The IEC names on output
// say which reading it is; "64MB" typed is echoed "64 MiB". See
// docs/decisions.md.
package units
