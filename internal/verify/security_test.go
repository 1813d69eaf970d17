package verify

import (
	"bytes"
	"testing"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareSecurity(t *testing.T) {
	base := func() openedge.Security {
		return openedge.Security{
			Users:  []openedge.User{{ID: "ana", Password: "h1", Name: "Ana"}, {ID: "bob", Password: "h2", Name: "Bob"}},
			Grants: []openedge.Grant{{Grantee: "ana", Object: "PUB.customer", Privileges: "SELECT"}, {Grantee: "dba", Privileges: "DBA"}},
			Views:  []openedge.View{{Owner: "PUB", Name: "v", Text: "SELECT 1"}},
		}
	}
	tests := []struct {
		name   string
		change func(s *openedge.Security)
		want   []SecurityItem
		err    string
	}{
		{"equal", func(*openedge.Security) {}, nil, ""},
		{"a user lost", func(s *openedge.Security) { s.Users = s.Users[:1] },
			[]SecurityItem{{Kind: "user", Name: "bob", Before: "Bob / password hash h2", Status: Missing}}, "user bob missing after"},
		{"a password hash changed", func(s *openedge.Security) { s.Users[0].Password = "other" },
			[]SecurityItem{{Kind: "user", Name: "ana", Before: "Ana / password hash h1", After: "Ana / password hash other", Status: Mismatch}}, "user ana differs"},
		{"a grant narrowed", func(s *openedge.Security) { s.Grants[0].Privileges = "" },
			[]SecurityItem{{Kind: "grant", Name: "ana ON PUB.customer", Before: "SELECT", Status: Mismatch}}, "grant ana ON PUB.customer differs"},
		{"a grant added", func(s *openedge.Security) {
			s.Grants = append(s.Grants, openedge.Grant{Grantee: "bob", Object: "PUB.order", Privileges: "SELECT"})
		}, []SecurityItem{{Kind: "grant", Name: "bob ON PUB.order", After: "SELECT", Status: Extra}}, "grant bob ON PUB.order not in the source"},
		{"a view lost", func(s *openedge.Security) { s.Views = nil },
			[]SecurityItem{{Kind: "view", Name: "PUB.v", Before: "SELECT 1", Status: Missing}}, "view PUB.v missing after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := base()
			tt.change(&after)
			s := CompareSecurity(base(), after)
			assert.Equal(t, tt.want, s.Bad)
			assert.Equal(t, tt.err == "", s.OK)
			r := &Result{OK: true}
			r.AddSecurity(s)
			var text bytes.Buffer
			require.NoError(t, WriteText(&text, r))
			if tt.err == "" {
				assert.NoError(t, r.Err())
				assert.Contains(t, text.String(), "security: MATCH  2 users, 2 grants, 1 view before")
				return
			}
			require.Error(t, r.Err())
			assert.Contains(t, r.Err().Error(), tt.err)
			assert.Contains(t, text.String(), "security: MISMATCH")
			assert.Contains(t, text.String(), tt.want[0].Name)
		})
	}
}
