/* load_security.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db TARGET -p load_security.p -param DIR
 * Reads DIR/_user.d, DIR/_sysauth.d and DIR/_sysviews.d (dump_security.p)
 * into the target. Every row is found before it is created, so a load run
 * again after a crash ends the same as one run once. The users go in with
 * their password hashes as they are: they log in with the same passwords.
 *
 * The SQL privileges and views are SQL catalog rows; this procedure hands
 * them to the SQL engine as GRANT and CREATE VIEW statements through
 * sqlexp (docs/decisions.md, "users, grants and views"): run as the DBA,
 * the statements are what sqlschema -g and the Data Dictionary's "Dump as
 * CREATE VIEW" would have written. */
DEFINE VARIABLE cDir AS CHARACTER NO-UNDO.
DEFINE VARIABLE cA AS CHARACTER NO-UNDO.
DEFINE VARIABLE cB AS CHARACTER NO-UNDO.
DEFINE VARIABLE cC AS CHARACTER NO-UNDO.
DEFINE VARIABLE cSQL AS CHARACTER NO-UNDO.
DEFINE VARIABLE i AS INTEGER NO-UNDO.

cDir = SESSION:PARAMETER.
IF cDir = "" THEN DO:
    MESSAGE "load_security.p: give the directory with -param".
    QUIT.
END.

INPUT FROM VALUE(cDir + "/_user.d").
REPEAT TRANSACTION:
    IMPORT cA cB cC.
    IF cA = "." THEN LEAVE.
    FIND _User WHERE _User._Userid = cA EXCLUSIVE-LOCK NO-ERROR.
    IF NOT AVAILABLE _User THEN DO:
        CREATE _User.
        _User._Userid = cA.
    END.
    ASSIGN _User._Password = cB _User._User-Name = cC.
END.
INPUT CLOSE.

cSQL = cDir + "/security.sql".
OUTPUT TO VALUE(cSQL).
INPUT FROM VALUE(cDir + "/_sysauth.d").
REPEAT:
    IMPORT cA cB cC.
    IF cA = "." THEN LEAVE.
    IF cB = "" THEN DO i = 1 TO NUM-ENTRIES(cC):
        PUT UNFORMATTED "GRANT " ENTRY(i, cC) " TO " QUOTER(cA) ";" SKIP.
    END.
    ELSE IF NUM-ENTRIES(cB, ".") = 3 THEN
        PUT UNFORMATTED "GRANT " cC " (" QUOTER(ENTRY(3, cB, ".")) ") ON " QUOTER(ENTRY(1, cB, ".")) "."
            QUOTER(ENTRY(2, cB, ".")) " TO " QUOTER(cA) ";" SKIP.
    ELSE
        PUT UNFORMATTED "GRANT " cC " ON " QUOTER(ENTRY(1, cB, ".")) "." QUOTER(ENTRY(2, cB, "."))
            " TO " QUOTER(cA) ";" SKIP.
END.
INPUT CLOSE.
INPUT FROM VALUE(cDir + "/_sysviews.d").
REPEAT:
    IMPORT cA cB cC.
    IF cA = "." THEN LEAVE.
    PUT UNFORMATTED "DROP VIEW " QUOTER(cA) "." QUOTER(cB) ";" SKIP
        "CREATE VIEW " QUOTER(cA) "." QUOTER(cB) " AS " cC ";" SKIP.
END.
INPUT CLOSE.
PUT UNFORMATTED "COMMIT WORK;" SKIP.
OUTPUT CLOSE.
OS-COMMAND SILENT VALUE("sqlexp -char -db " + PDBNAME(1) + " -infile " + QUOTER(cSQL)
    + " -outfile " + QUOTER(cDir + "/security.sqlout")).
QUIT.
