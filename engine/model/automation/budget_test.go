package automation

import (
	"testing"
	"time"
)

func TestCheckBudget(t *testing.T) {
	b := Budget{MaxToolCalls: 10, MaxWrites: 2, MaxApprovalRequests: 1, MaxMinutes: 15}
	read := Call{Tool: "get_release", Class: "read"}
	write := Call{Tool: "save_draft", Class: "reduce", Write: true}
	ask := Call{Tool: "schedule_release", Class: "publish", ApprovalRequest: true}
	tests := []struct {
		name  string
		u     Usage
		b     Budget
		c     Call
		code  string
		field string
	}{
		{"fresh", Usage{}, b, read, "", ""},
		{"the 10th call", Usage{ToolCalls: 9}, b, read, "", ""},
		{"the 11th call", Usage{ToolCalls: 10}, b, read, CodeBudgetToolCalls, "maxToolCalls"},
		{"the 2nd write", Usage{ToolCalls: 3, Writes: 1}, b, write, "", ""},
		{"the 3rd write", Usage{ToolCalls: 3, Writes: 2}, b, write, CodeBudgetWrites, "maxWrites"},
		{"a read after the writes", Usage{ToolCalls: 3, Writes: 2}, b, read, "", ""},
		{"the 1st request", Usage{ToolCalls: 3}, b, ask, "", ""},
		{"the 2nd request", Usage{ToolCalls: 3, ApprovalRequests: 1}, b, ask, CodeBudgetApprovals, "maxApprovalRequests"},
		{"no writes allowed", Usage{}, Budget{MaxToolCalls: 5, MaxMinutes: 5}, write, CodeBudgetWrites, "maxWrites"},
		{"no requests allowed", Usage{}, Budget{MaxToolCalls: 5, MaxMinutes: 5}, ask, CodeBudgetApprovals, "maxApprovalRequests"},
		{"tool calls first", Usage{ToolCalls: 10, Writes: 2}, b, write, CodeBudgetToolCalls, "maxToolCalls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBudget(tt.u, tt.b, tt.c)
			checkValidation(t, err, tt.code, tt.field)
			if err != nil && err.(*Error).Tool != tt.c.Tool {
				t.Fatalf("tool %q", err.(*Error).Tool)
			}
		})
	}
}

// Calls recorded by AfterCall meet CheckBudget exactly at the limit: with a
// budget of n tool calls the n+1st is refused.
func TestBudgetWithLedger(t *testing.T) {
	b := Budget{MaxToolCalls: 5, MaxWrites: 1, MaxApprovalRequests: 0, MaxMinutes: 15}
	r := RunLedger{}
	t0 := at("2026-11-02T09:08:00Z")
	calls := 0
	for CheckBudget(r.Usage, b, Call{Tool: "get_release"}) == nil {
		r = AfterCall(r, Call{Tool: "get_release", Class: "read"}, t0)
		calls++
	}
	if calls != 5 {
		t.Fatalf("%d calls", calls)
	}
}

func TestBudgetLeft(t *testing.T) {
	b := DefaultBudget
	ends := at("2026-11-02T09:22:00Z")
	tests := []struct {
		name string
		u    Usage
		now  string
		want Left
	}{
		{"fresh", Usage{}, "2026-11-02T09:07:00Z", Left{100, 20, 5, 15}},
		{"some spent", Usage{ToolCalls: 40, Writes: 3, ApprovalRequests: 5}, "2026-11-02T09:12:00Z", Left{60, 17, 0, 10}},
		{"seconds round up", Usage{}, "2026-11-02T09:21:30Z", Left{100, 20, 5, 1}},
		{"a minute and a second", Usage{}, "2026-11-02T09:20:59Z", Left{100, 20, 5, 2}},
		{"ended", Usage{}, "2026-11-02T09:22:00Z", Left{100, 20, 5, 0}},
		{"over", Usage{ToolCalls: 101, Writes: 21, ApprovalRequests: 6}, "2026-11-02T10:00:00Z", Left{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BudgetLeft(tt.u, b, at(tt.now), ends); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDailyWriteCap(t *testing.T) {
	if DefaultDailyWriteCap != 200 {
		t.Fatal("§11.5's default is 200")
	}
	tests := []struct {
		writes, cap int
		want        bool
	}{
		{0, 200, true},
		{199, 200, true},
		{200, 200, false},
		{250, 200, false},
		{0, 0, false},
		{0, 1, true},
	}
	for _, tt := range tests {
		if got := WithinDailyWriteCap(tt.writes, tt.cap); got != tt.want {
			t.Errorf("WithinDailyWriteCap(%d, %d) = %v", tt.writes, tt.cap, got)
		}
		want := ""
		if !tt.want {
			want = CodeDailyWriteCap
		}
		wantCode(t, CheckDailyWriteCap(tt.writes, tt.cap), want)
	}
	wantCode(t, ValidateDailyWriteCap(-1), CodeBadDailyWriteCap)
	wantCode(t, ValidateDailyWriteCap(0), "")
	wantCode(t, ValidateDailyWriteCap(DefaultDailyWriteCap), "")
}

func TestUTCDay(t *testing.T) {
	istanbul := time.FixedZone("+03", 3*3600)
	tests := []struct {
		name       string
		now        time.Time
		start, end string
	}{
		{"midday", at("2026-11-02T12:34:56Z"), "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"},
		{"midnight belongs to the new day", at("2026-11-02T00:00:00Z"), "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"},
		{"last instant", at("2026-11-02T23:59:59.999999999Z"), "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"},
		// 01:30 in Istanbul is still the previous UTC day.
		{"a zoned now", time.Date(2026, 11, 3, 1, 30, 0, 0, istanbul), "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"},
		{"year end", at("2026-12-31T23:00:00Z"), "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"},
		{"leap day", at("2028-02-29T10:00:00Z"), "2028-02-29T00:00:00Z", "2028-03-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end := UTCDay(tt.now)
			if !start.Equal(at(tt.start)) || !end.Equal(at(tt.end)) || start.Location() != time.UTC {
				t.Fatalf("got [%v, %v)", start, end)
			}
			if tt.now.Before(start) || !tt.now.Before(end) {
				t.Fatal("now outside its day")
			}
		})
	}
}
