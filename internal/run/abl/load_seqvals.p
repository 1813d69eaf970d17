/* load_seqvals.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db TARGET -p load_seqvals.p -param INFILE
 * Sets every sequence named in INFILE (written by dump_seqvals.p) to its
 * dumped current value. A sequence missing from the target is an error:
 * the target was built from the same .df, so it means the wrong database. */
DEFINE VARIABLE cIn AS CHARACTER NO-UNDO.
DEFINE VARIABLE cName AS CHARACTER NO-UNDO.
DEFINE VARIABLE iValue AS INT64 NO-UNDO.
DEFINE VARIABLE iCount AS INTEGER NO-UNDO.

cIn = SESSION:PARAMETER.
IF cIn = "" THEN DO:
    MESSAGE "load_seqvals.p: give the input file with -param".
    QUIT.
END.

INPUT FROM VALUE(cIn).
REPEAT TRANSACTION:
    IMPORT cName iValue.
    IF NOT CAN-FIND(FIRST _Sequence WHERE _Sequence._Seq-Name = cName) THEN DO:
        MESSAGE "load_seqvals.p: sequence" cName "does not exist in" LDBNAME(1).
        UNDO, RETURN ERROR.
    END.
    DYNAMIC-CURRENT-VALUE(cName, LDBNAME(1)) = iValue.
    iCount = iCount + 1.
END.
INPUT CLOSE.
MESSAGE iCount "sequence value(s) restored from" cIn.
QUIT.
