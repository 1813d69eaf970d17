/* dump_seqvals.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db SOURCE -p dump_seqvals.p -param OUTFILE
 * Writes one line per sequence of the connected database: its name and its
 * current value, in EXPORT format ("name" value), so that load_seqvals.p
 * can IMPORT it back. DYNAMIC-CURRENT-VALUE reads the value without
 * changing it (NEXT-VALUE would). */
DEFINE VARIABLE cOut AS CHARACTER NO-UNDO.
DEFINE VARIABLE iCount AS INTEGER NO-UNDO.

cOut = SESSION:PARAMETER.
IF cOut = "" THEN DO:
    MESSAGE "dump_seqvals.p: give the output file with -param".
    QUIT.
END.

OUTPUT TO VALUE(cOut).
FOR EACH _Sequence NO-LOCK:
    EXPORT _Sequence._Seq-Name DYNAMIC-CURRENT-VALUE(_Sequence._Seq-Name, LDBNAME(1)).
    iCount = iCount + 1.
END.
OUTPUT CLOSE.
MESSAGE iCount "sequence value(s) dumped to" cOut.
QUIT.
