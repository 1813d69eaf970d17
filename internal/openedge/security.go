package openedge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
)

// What a database holds besides its tables, sequences and data: the ABL
// users (_User), and the SQL side's privileges (_sysdbauth, _systabauth,
// _syscolauth) and views (_sysviews). A binary dump carries none of them;
// dump_security.p writes them into a directory as three contents files
// and load_security.p reads them back (docs/decisions.md: "users, grants
// and views").

// The files of a security directory.
const (
	UsersFile  = "_user.d"     // the Data Administration's default name
	GrantsFile = "_sysauth.d"  // database, table and column privileges
	ViewsFile  = "_sysviews.d" // SQL views
)

// User is one row of _User. Password is the stored hash, never a clear
// password: carried as it is, the users log in with the same passwords.
type User struct {
	ID       string // _Userid
	Password string // _Password (ENCODE'd)
	Name     string // _User-Name
}

// Grant is one privilege row. Object is "" for a database-wide privilege
// (DBA, RESOURCE: _sysdbauth), OWNER.TABLE for a table's (_systabauth),
// OWNER.TABLE.COLUMN for a column's (_syscolauth). Privileges is a sorted
// comma list (SELECT,UPDATE).
type Grant struct {
	Grantee    string
	Object     string
	Privileges string
}

// Key names the grant in a report: "bob ON PUB.customer".
func (g Grant) Key() string {
	if g.Object == "" {
		return g.Grantee + " ON DATABASE"
	}
	return g.Grantee + " ON " + g.Object
}

// View is one SQL view: its owner, name and defining SELECT.
type View struct {
	Owner string
	Name  string
	Text  string
}

// Key is OWNER.NAME.
func (v View) Key() string { return v.Owner + "." + v.Name }

// Security is the users, grants and views of one database.
type Security struct {
	Users  []User
	Grants []Grant
	Views  []View
}

// Sort puts every list in key order, so that two databases compare and
// write alike whatever order their rows came in.
func (s *Security) Sort() {
	sort.Slice(s.Users, func(i, j int) bool { return s.Users[i].ID < s.Users[j].ID })
	sort.Slice(s.Grants, func(i, j int) bool { return s.Grants[i].Key() < s.Grants[j].Key() })
	sort.Slice(s.Views, func(i, j int) bool { return s.Views[i].Key() < s.Views[j].Key() })
}

// NormalizePrivileges sorts and upper-cases a comma list of privileges.
func NormalizePrivileges(list string) string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// WriteSecurity writes the three files into dir (made if missing), each
// replaced whole.
func WriteSecurity(dir, ldbname string, s Security, at time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.Sort()
	var users, grants, views [][]string
	for _, u := range s.Users {
		users = append(users, []string{u.ID, u.Password, u.Name})
	}
	for _, g := range s.Grants {
		grants = append(grants, []string{g.Grantee, g.Object, g.Privileges})
	}
	for _, v := range s.Views {
		views = append(views, []string{v.Owner, v.Name, v.Text})
	}
	for _, f := range []struct {
		file, table string
		recs        [][]string
	}{{UsersFile, "_User", users}, {GrantsFile, "_sysauth", grants}, {ViewsFile, "_sysviews", views}} {
		var b bytes.Buffer
		if err := WriteDFile(&b, f.table, ldbname, f.recs, at); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f.file), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// ReadSecurity reads the three files of dir. A missing or unreadable file
// is an error naming it.
func ReadSecurity(dir string) (Security, error) {
	var s Security
	for _, f := range []struct {
		file string
		add  func([]string)
	}{
		{UsersFile, func(r []string) { s.Users = append(s.Users, User{ID: r[0], Password: r[1], Name: r[2]}) }},
		{GrantsFile, func(r []string) {
			s.Grants = append(s.Grants, Grant{Grantee: r[0], Object: r[1], Privileges: NormalizePrivileges(r[2])})
		}},
		{ViewsFile, func(r []string) { s.Views = append(s.Views, View{Owner: r[0], Name: r[1], Text: r[2]}) }},
	} {
		path := filepath.Join(dir, f.file)
		fh, err := os.Open(path)
		if err != nil {
			return Security{}, err
		}
		d, err := ParseDFile(fh, path, 3)
		fh.Close()
		if err != nil {
			return Security{}, err
		}
		for _, r := range d.Records {
			for i := range r {
				if r[i] == Unknown {
					r[i] = ""
				}
			}
			f.add(r)
		}
	}
	s.Sort()
	return s, nil
}

// String is a one-line summary: "3 users, 5 grants, 1 view".
func (s Security) String() string {
	count := func(n int, noun string) string {
		if n == 1 {
			return "1 " + noun
		}
		return fmt.Sprintf("%d %ss", n, noun)
	}
	return count(len(s.Users), "user") + ", " + count(len(s.Grants), "grant") + ", " + count(len(s.Views), "view")
}
