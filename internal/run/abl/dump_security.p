/* dump_security.p - written by oedl into WORK/abl/ and run as
 *   _progres -b -db SOURCE -p dump_security.p -param DIR
 * Writes what a binary dump does not carry, into DIR (which oedl makes):
 *   _user.d      the _User rows: _Userid _Password _User-Name, as the Data
 *                Administration's "User Table Contents" dump writes them
 *                (the password hash, never a clear password);
 *   _sysauth.d   the SQL privileges: grantee, object ("" for the database,
 *                OWNER.TABLE, OWNER.TABLE.COLUMN) and the privileges;
 *   _sysviews.d  the SQL views: owner, name, view text.
 * Each in EXPORT format, then "." and the PSC trailer, so that oedl reads
 * all three with its contents-file parser (openedge.ParseDFile). */
DEFINE VARIABLE cDir AS CHARACTER NO-UNDO.
DEFINE VARIABLE iCount AS INTEGER NO-UNDO.
DEFINE VARIABLE cPrivs AS CHARACTER NO-UNDO.

cDir = SESSION:PARAMETER.
IF cDir = "" THEN DO:
    MESSAGE "dump_security.p: give the output directory with -param".
    QUIT.
END.

PROCEDURE trailer:
    DEFINE INPUT PARAMETER cTable AS CHARACTER NO-UNDO.
    DEFINE INPUT PARAMETER iRecs AS INTEGER NO-UNDO.
    DEFINE VARIABLE iPos AS INT64 NO-UNDO.
    PUT UNFORMATTED "." SKIP.
    iPos = SEEK(OUTPUT).
    PUT UNFORMATTED "PSC" SKIP "filename=" cTable SKIP
        "records=" STRING(iRecs, "9999999999999") SKIP
        "ldbname=" LDBNAME(1) SKIP
        "timestamp=" STRING(YEAR(TODAY), "9999") "/" STRING(MONTH(TODAY), "99") "/" STRING(DAY(TODAY), "99")
        "-" STRING(TIME, "HH:MM:SS") SKIP
        "numformat=44,46" SKIP "dateformat=mdy-1950" SKIP "map=NO-MAP" SKIP
        "cpstream=" SESSION:CPSTREAM SKIP "." SKIP
        STRING(iPos, "9999999999") SKIP.
END PROCEDURE.

FUNCTION flags RETURNS CHARACTER (cNames AS CHARACTER, cValues AS CHARACTER):
    /* SQL catalog privilege columns hold "y" (granted) or "g" (granted
     * with grant option); the list is the names of those set. */
    DEFINE VARIABLE i AS INTEGER NO-UNDO.
    DEFINE VARIABLE cOut AS CHARACTER NO-UNDO.
    DO i = 1 TO NUM-ENTRIES(cNames):
        IF ENTRY(i, cValues) = "y" OR ENTRY(i, cValues) = "g" THEN
            cOut = cOut + (IF cOut = "" THEN "" ELSE ",") + ENTRY(i, cNames).
    END.
    RETURN cOut.
END FUNCTION.

OUTPUT TO VALUE(cDir + "/_user.d").
iCount = 0.
FOR EACH _User NO-LOCK BY _User._Userid:
    EXPORT _User._Userid _User._Password _User._User-Name.
    iCount = iCount + 1.
END.
RUN trailer ("_User", iCount).
OUTPUT CLOSE.

OUTPUT TO VALUE(cDir + "/_sysauth.d").
iCount = 0.
FOR EACH _sysdbauth NO-LOCK:
    cPrivs = flags("DBA,RESOURCE", _sysdbauth._Dbaacc + "," + _sysdbauth._Resacc).
    IF cPrivs <> "" THEN DO:
        EXPORT _sysdbauth._Grantee "" cPrivs.
        iCount = iCount + 1.
    END.
END.
FOR EACH _systabauth NO-LOCK:
    cPrivs = flags("ALTER,DELETE,INDEX,INSERT,REFERENCES,SELECT,UPDATE",
        _systabauth._Alt + "," + _systabauth._Del + "," + _systabauth._Ndx + "," + _systabauth._Ins + ","
        + _systabauth._Ref + "," + _systabauth._Sel + "," + _systabauth._Upd).
    IF cPrivs <> "" THEN DO:
        EXPORT _systabauth._Grantee (_systabauth._Tblowner + "." + _systabauth._Tbl) cPrivs.
        iCount = iCount + 1.
    END.
END.
FOR EACH _syscolauth NO-LOCK:
    cPrivs = flags("REFERENCES,UPDATE", _syscolauth._Ref + "," + _syscolauth._Upd).
    IF cPrivs <> "" THEN DO:
        EXPORT _syscolauth._Grantee (_syscolauth._Tblowner + "." + _syscolauth._Tbl + "." + _syscolauth._Col) cPrivs.
        iCount = iCount + 1.
    END.
END.
RUN trailer ("_sysauth", iCount).
OUTPUT CLOSE.

OUTPUT TO VALUE(cDir + "/_sysviews.d").
iCount = 0.
FOR EACH _sysviews NO-LOCK BREAK BY _sysviews._Owner BY _sysviews._Viewname BY _sysviews._Seq:
    /* a long view text is stored in pieces, numbered by _Seq */
    IF FIRST-OF(_sysviews._Viewname) THEN cPrivs = "".
    cPrivs = cPrivs + _sysviews._Viewtext.
    IF LAST-OF(_sysviews._Viewname) THEN DO:
        EXPORT _sysviews._Owner _sysviews._Viewname cPrivs.
        iCount = iCount + 1.
    END.
END.
RUN trailer ("_sysviews", iCount).
OUTPUT CLOSE.
QUIT.
