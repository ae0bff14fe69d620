package protocol

import (
	"reflect"
	"testing"
)

func TestForbiddenForAll(t *testing.T) {
	noJS := &SitePolicy{Forbidden: []string{"evaluate", "coordinates"}}
	noJSNoPDF := &SitePolicy{Forbidden: []string{"evaluate", "debugger", "responseBodies"}}
	for _, c := range []struct {
		name string
		in   []*SitePolicy
		want map[string]bool
	}{
		{"no profile", nil, nil},
		{"one profile without a policy", []*SitePolicy{nil}, nil},
		{"one profile", []*SitePolicy{noJS}, map[string]bool{"browser_evaluate": true, "browser_click_xy": true, "browser_drag_xy": true}},
		{"what every profile forbids", []*SitePolicy{noJS, noJSNoPDF}, map[string]bool{"browser_evaluate": true}},
		{"a profile without a policy forbids nothing", []*SitePolicy{noJS, nil}, nil},
	} {
		if got := ForbiddenForAll(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
