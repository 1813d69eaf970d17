package openedge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExtentFileOf(t *testing.T) {
	tests := []struct{ db, path, want string }{
		{"/db/prod/sports", "sports_7.d1", "/db/prod/sports_7.d1"},
		{"/db/prod/sports.db", "./sports.b1", "/db/prod/sports.b1"},
		{"/db/prod/sports", "/data2/sports_8.d1", "/data2/sports_8.d1"},
		{"sports", "sports.d1", "sports.d1"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Extent{Path: tt.path}.FileOf(tt.db), tt.db+" "+tt.path)
	}
}
