package telegram

import (
	"testing"
)

func TestDecodeUpdate(t *testing.T) {
	for _, c := range []struct {
		name string
		json string
		want Incoming
		ok   bool
	}{
		{"message", `{"update_id":5,"message":{"message_id":9,"date":1,"text":"/start","chat":{"id":42,"type":"private"},"from":{"id":42,"is_bot":false,"first_name":"A","username":"ann"}}}`,
			Incoming{UpdateID: 5, ChatID: 42, ChatType: "private", UserID: 42, Username: "ann", Text: "/start", MessageID: 9}, true},
		{"forum message", `{"update_id":6,"message":{"message_id":1,"date":1,"text":"hi","chat":{"id":-100,"type":"supergroup","is_forum":true},"from":{"id":7,"is_bot":false,"first_name":"B"}}}`,
			Incoming{UpdateID: 6, ChatID: -100, ChatType: "supergroup", Forum: true, UserID: 7, Text: "hi", MessageID: 1}, true},
		{"press", `{"update_id":7,"callback_query":{"id":"q1","chat_instance":"c","data":"set:auto_topics","from":{"id":7,"is_bot":false,"first_name":"B"},"message":{"message_id":3,"date":1,"chat":{"id":7,"type":"private"}}}}`,
			Incoming{UpdateID: 7, ChatID: 7, ChatType: "private", UserID: 7, MessageID: 3, CallbackID: "q1", CallbackData: "set:auto_topics"}, true},
		{"press on an old message", `{"update_id":8,"callback_query":{"id":"q2","chat_instance":"c","data":"x","from":{"id":7,"is_bot":false,"first_name":"B"},"message":{"message_id":3,"date":0,"chat":{"id":7,"type":"private"}}}}`,
			Incoming{UpdateID: 8, ChatID: 7, ChatType: "private", UserID: 7, MessageID: 3, CallbackID: "q2", CallbackData: "x"}, true},
		{"kicked", `{"update_id":9,"my_chat_member":{"chat":{"id":-5,"type":"group"},"from":{"id":7,"is_bot":false,"first_name":"B"},"date":1,"old_chat_member":{"status":"member","user":{"id":1,"is_bot":true,"first_name":"bot"}},"new_chat_member":{"status":"kicked","user":{"id":1,"is_bot":true,"first_name":"bot"},"until_date":0}}}`,
			Incoming{UpdateID: 9, ChatID: -5, ChatType: "group", UserID: 7, Member: "kicked"}, true},
		{"edited message", `{"update_id":10,"edited_message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"}}}`, Incoming{UpdateID: 10}, false},
	} {
		got, ok, err := DecodeUpdate([]byte(c.json))
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("%s: %+v %v %v, want %+v %v", c.name, got, ok, err, c.want, c.ok)
		}
	}
}

func FuzzDecodeUpdate(f *testing.F) {
	for _, s := range []string{
		`{"update_id":5,"message":{"message_id":9,"date":1,"text":"/start","chat":{"id":42,"type":"private"},"from":{"id":42,"is_bot":false,"first_name":"A"}}}`,
		`{"update_id":7,"callback_query":{"id":"q1","chat_instance":"c","data":"d","from":{"id":7,"is_bot":false,"first_name":"B"},"message":{"message_id":3,"date":0,"chat":{"id":7,"type":"private"}}}}`,
		`{"update_id":9,"my_chat_member":{"chat":{"id":-5,"type":"group"},"from":{"id":7,"is_bot":false,"first_name":"B"},"date":1,"new_chat_member":{"status":"left","user":{"id":1,"is_bot":true,"first_name":"b"}}}}`,
		`{"update_id":1,"callback_query":{"id":"q","message":null}}`, `{}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok, err := DecodeUpdate(b)
		if err != nil || !ok {
			return
		}
		if in.ChatID == 0 && in.CallbackID == "" {
			t.Fatalf("handled update with no chat and no press: %+v", in)
		}
	})
}

// TestCheckKeys: an answer with a key outside lowercase snake_case is
// refused (FuzzDecodeUpdate's crasher, a callback_query "messAge", crashed
// the process inside telego's decoder), anywhere in it; keys in arrays of
// objects and values that look like keys do not confuse the walk.
func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		json string
		odd  bool
	}{
		{`{"ok":true,"result":[{"update_id":1,"callback_query":{"id":"q","message":{"message_id":3,"date":1}}}]}`, false},
		{`{"ok":true,"result":[{"update_id":1,"callback_query":{"id":"q","messAge":{"message_id":3}}}]}`, true},
		{`{"ok":true,"result":[{"update_id":1},{"update_id":2,"message":{"text":"Message","entities":[{"type":"bold"}]}}]}`, false},
		{`{"ok":true,"result":[{"update_id":1},{"update_id":2,"message":{"entities":[{"Type":"bold"}]}}]}`, true},
		{`{"a":{"b":[1,{"c":null}],"d":"E"},"f":[[],{}],"g":"h"}`, false},
		{`{"a":{"b":[1,{"c":null}]},"Ok":1}`, true},
		{`{"k\u212a":1}`, true}, // the Kelvin sign folds to k in case-insensitive matching
		{`[]`, false}, {`null`, false}, {`{"a":`, false}, {`not json`, false},
	} {
		if err := checkKeys([]byte(c.json)); (err != nil) != c.odd {
			t.Errorf("%s: %v, want odd %v", c.json, err, c.odd)
		}
	}
}
