package web

import (
	"context"
	"reflect"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// AccountStatus is one account with its registration state.
type AccountStatus = sipua.AccountStatus

// DayCount is the calls of one outcome on one day.
type DayCount = store.DayCount

// testerOf finds a SendTest(ctx) (T, error) method on the webhook sender,
// where T has Status int and Body string (webhook.TestResult): server/web
// may not import server/webhook, and this spares the wiring an adapter.
func testerOf(w any) WebhookTester {
	if w == nil {
		return nil
	}
	m := reflect.ValueOf(w).MethodByName("SendTest")
	if !m.IsValid() {
		return nil
	}
	t := m.Type()
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	if t.NumIn() != 1 || t.In(0) != ctxType || t.NumOut() != 2 || t.Out(1) != errType || t.Out(0).Kind() != reflect.Struct {
		return nil
	}
	st, ok1 := t.Out(0).FieldByName("Status")
	bd, ok2 := t.Out(0).FieldByName("Body")
	if !ok1 || !ok2 || st.Type.Kind() != reflect.Int || bd.Type.Kind() != reflect.String {
		return nil
	}
	return func(ctx context.Context) (int, string, error) {
		out := m.Call([]reflect.Value{reflect.ValueOf(ctx)})
		err, _ := out[1].Interface().(error)
		r := out[0]
		return int(r.FieldByIndex(st.Index).Int()), r.FieldByIndex(bd.Index).String(), err
	}
}
