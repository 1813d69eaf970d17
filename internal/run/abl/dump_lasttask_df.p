/* dump_lasttask_df.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db SOURCE -1 -p dump_lasttask_df.p -param DIR
 * The preflight's one single-user session on the source: it writes
 * DIR/source.lasttask, the master block's last transaction id, as
 * dump_lasttask.p does (oedl journals it at the freeze and compares it on
 * --resume), then the source's definitions into DIR/source.df through
 * prodict/dump_df.p (oedl holds the plan against them). One session, one
 * start-up: the two were two sessions in a row before the first dump.
 * The session is single-user (-1): OpenEdge refuses it on a database
 * anyone holds, so its success also proves the source free. */
DEFINE VARIABLE cDir AS CHARACTER NO-UNDO.

cDir = SESSION:PARAMETER.
IF cDir = "" THEN DO:
    MESSAGE "dump_lasttask_df.p: give the output directory with -param".
    QUIT.
END.

FIND FIRST _MstrBlk NO-LOCK.
OUTPUT TO VALUE(cDir + "/source.lasttask").
PUT UNFORMATTED _MstrBlk._MstrBlk-Lasttask SKIP.
OUTPUT CLOSE.

RUN prodict/dump_df.p (INPUT "ALL", INPUT cDir + "/source.df", INPUT "").
QUIT.
