/* dump_lasttask.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db SOURCE -1 -p dump_lasttask.p -param OUTFILE
 * Writes the master block's last transaction id (_MstrBlk-Lasttask) as one
 * line. Every transaction that changes the database takes a new id; reads
 * and opens take none (the open dates the master block also keeps change on
 * every open, so they are not read). oedl journals it at the freeze and
 * compares it on --resume: a different value means the source changed. */
DEFINE VARIABLE cOut AS CHARACTER NO-UNDO.

cOut = SESSION:PARAMETER.
IF cOut = "" THEN DO:
    MESSAGE "dump_lasttask.p: give the output file with -param".
    QUIT.
END.

FIND FIRST _MstrBlk NO-LOCK.
OUTPUT TO VALUE(cOut).
PUT UNFORMATTED _MstrBlk._MstrBlk-Lasttask SKIP.
OUTPUT CLOSE.
QUIT.
