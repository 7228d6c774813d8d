package httpapi

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/governance/scan"
	"github.com/governance-gateway/gateway/schemas"
)

// writeVerifyResponse writes r as c.JSON would, byte for byte, without
// encoding/json's reflection: the 2 KB answer of `gateway bench verify`
// cost ~20 instructions a byte there. ?pretty (indented) and a value
// encoding/json refuses (a NaN score, which it answers with an error) go to
// c.JSON.
func writeVerifyResponse(c echo.Context, r *verifyResponse) error {
	if _, pretty := c.QueryParams()["pretty"]; !pretty && !c.Echo().Debug {
		if b, ok := r.appendJSON(make([]byte, 0, 512+len(r.Answer)+len(r.Answer)/16)); ok {
			return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
		}
	}
	return c.JSON(http.StatusOK, r)
}

// appendJSON appends json.Encoder's encoding of r (with its newline); ok is
// false for a float encoding/json refuses. TestVerifyResponseJSON holds it
// to encoding/json and to the fields of every type it writes.
func (r *verifyResponse) appendJSON(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"ok":`...)
	b = strconv.AppendBool(b, r.OK)
	b = append(b, `,"request_id":`...)
	b = schemas.AppendJSONString(b, r.RequestID)
	b = append(b, `,"answer":`...)
	b = schemas.AppendJSONString(b, r.Answer)
	b = append(b, `,"answer_changed":`...)
	b = strconv.AppendBool(b, r.AnswerChanged)
	b = append(b, `,"governance":`...)
	b = schemas.AppendJSONString(b, string(r.Governance))
	b = append(b, `,"mismatch_type":`...)
	b = schemas.AppendJSONString(b, r.MismatchType)
	b = append(b, `,"policy_hits":`...)
	if b, ok = appendFindings(b, r.PolicyHits); !ok {
		return b, false
	}
	b = append(b, `,"explanation":`...)
	b = appendExplanation(b, &r.Explanation)
	b = append(b, `,"reasons":`...)
	b = appendChatReasons(b, r.Reasons)
	b = append(b, `,"risk_score":`...)
	if b, ok = schemas.AppendJSONFloat(b, r.RiskScore); !ok {
		return b, false
	}
	return append(b, "}\n"...), true
}

func appendFindings(b []byte, fs []governance.Finding) (_ []byte, ok bool) {
	if fs == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range fs {
		f := &fs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"policy":`...)
		b = schemas.AppendJSONString(b, f.Policy)
		b = append(b, `,"severity":`...)
		b = schemas.AppendJSONString(b, string(f.Severity))
		b = append(b, `,"confidence":`...)
		if b, ok = schemas.AppendJSONFloat(b, f.Confidence); !ok {
			return b, false
		}
		b = append(b, `,"stage":`...)
		b = schemas.AppendJSONString(b, string(f.Stage))
		b = append(b, `,"action":`...)
		b = schemas.AppendJSONString(b, string(f.Action))
		if len(f.Spans) > 0 {
			b = append(b, `,"spans":[`...)
			for j, sp := range f.Spans {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendSpan(b, sp)
			}
			b = append(b, ']')
		}
		b = appendOmitEmpty(b, `,"tool":`, f.Tool)
		b = appendOmitEmpty(b, `,"tool_call_id":`, f.ToolCallID)
		b = append(b, '}')
	}
	return append(b, ']'), true
}

func appendExplanation(b []byte, x *governance.Explanation) []byte {
	b = append(b, `{"summary":`...)
	b = schemas.AppendJSONString(b, x.Summary)
	if len(x.Grounding) > 0 {
		b = append(b, `,"grounding":[`...)
		for i := range x.Grounding {
			e := &x.Grounding[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"answer_span":`...)
			b = appendSpan(b, e.AnswerSpan)
			b = append(b, `,"answer_text":`...)
			b = schemas.AppendJSONString(b, e.AnswerText)
			if e.SourceSpan != nil {
				b = append(b, `,"source_span":`...)
				b = appendSpan(b, *e.SourceSpan)
			}
			b = appendOmitEmpty(b, `,"source_text":`, e.SourceText)
			b = append(b, `,"reason":`...)
			b = schemas.AppendJSONString(b, e.Reason)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(x.Rewrites) > 0 {
		b = append(b, `,"rewrites":[`...)
		for i, w := range x.Rewrites {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"policy":`...)
			b = schemas.AppendJSONString(b, w.Policy)
			b = append(b, `,"span":`...)
			b = appendSpan(b, w.Span)
			b = append(b, `,"replacement":`...)
			b = schemas.AppendJSONString(b, w.Replacement)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendChatReasons(b []byte, rs []chatReason) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"policy":`...)
		b = schemas.AppendJSONString(b, r.Policy)
		b = append(b, `,"severity":`...)
		b = schemas.AppendJSONString(b, r.Severity)
		b = append(b, `,"stage":`...)
		b = schemas.AppendJSONString(b, r.Stage)
		b = appendOmitEmpty(b, `,"tool":`, r.Tool)
		b = appendOmitEmpty(b, `,"tool_call_id":`, r.ToolCallID)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendSpan(b []byte, sp scan.Span) []byte {
	b = append(b, `{"start":`...)
	b = strconv.AppendInt(b, int64(sp.Start), 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, int64(sp.End), 10)
	return append(b, '}')
}

// appendOmitEmpty writes an omitempty string member: key (with its comma
// and colon) and s, unless s is empty.
func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return schemas.AppendJSONString(append(b, key...), s)
}
