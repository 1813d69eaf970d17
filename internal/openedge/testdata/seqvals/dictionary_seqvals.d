0 "NextCustNum" 2101
1 "NextInvNum" 1000
2 "Next""Odd""Name" -5
3 "NextOrdNum" 6070
.
PSC
cpstream=ISO8859-1
.
0000000086
