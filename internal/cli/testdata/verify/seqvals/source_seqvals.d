0 "NextCustNum" 11646
1 "NextOrdNum" 41196
2 "NextInvNum" 1564
.
PSC
filename=_seqvals
records=0000000003
ldbname=prod
timestamp=2026/11/28-09:40:12
numformat=44,46
dateformat=mdy-1950
map=NO-MAP
cpstream=UTF-8
.
0000000060
