package gen

import (
	"fmt"
	"hash/fnv"

	"github.com/oedl/oedl/internal/openedge"
)

// demoSecurity gives a generated database what a production one carries
// besides its tables: ABL users with password hashes, SQL privileges at
// database, table and column level, and a SQL view, so that a run that
// forgets them is seen to lose them. Deterministic by the tables' names.
func demoSecurity(db *Database) openedge.Security {
	s := openedge.Security{}
	for _, u := range []struct{ id, name string }{{"dba", "Database Administrator"}, {"ana", "Ana Souza"},
		{"joao", "João Pereira"}, {"report", "Reporting \"read only\""}} {
		s.Users = append(s.Users, openedge.User{ID: u.id, Password: passwordHash(db.Name + "/" + u.id), Name: u.name})
	}
	s.Grants = append(s.Grants, openedge.Grant{Grantee: "dba", Privileges: "DBA,RESOURCE"})
	if len(db.Tables) == 0 {
		return s
	}
	first := db.Tables[0]
	s.Grants = append(s.Grants,
		openedge.Grant{Grantee: "report", Object: first.Owner + "." + first.Name, Privileges: "SELECT"},
		openedge.Grant{Grantee: "ana", Object: first.Owner + "." + first.Name, Privileges: "DELETE,INSERT,SELECT,UPDATE"})
	if last := db.Tables[len(db.Tables)-1]; last != first {
		s.Grants = append(s.Grants, openedge.Grant{Grantee: "report", Object: last.Owner + "." + last.Name, Privileges: "SELECT"})
	}
	if first.Def != nil && len(first.Def.Fields) > 0 {
		col := first.Def.Fields[0].Name
		s.Grants = append(s.Grants, openedge.Grant{Grantee: "joao", Object: first.Owner + "." + first.Name + "." + col, Privileges: "UPDATE"})
		s.Views = append(s.Views, openedge.View{Owner: first.Owner, Name: "v_" + first.Name,
			Text: fmt.Sprintf("SELECT \"%s\"\nFROM %s.\"%s\"", col, first.Owner, first.Name)})
	}
	s.Sort()
	return s
}

// passwordHash stands for the ENCODE'd _Password: 16 characters from
// [a-zA-Z0-9], never the clear password.
func passwordHash(seed string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	h := fnv.New64a()
	h.Write([]byte(seed))
	out := make([]byte, 16)
	for i := range out {
		// one more byte hashed per character: every character depends
		// on the whole seed
		h.Write([]byte{byte(i)})
		out[i] = alphabet[h.Sum64()%uint64(len(alphabet))]
	}
	return string(out)
}
