#!/usr/bin/env python3
"""Writes the malformed-input corpus of cases.txt (run from this directory).

The inputs hold raw bytes (invalid UTF-8, NUL, byte-order marks), so they
are generated here rather than typed; `python3 gen.py` rewrites them all.
"""
import gzip, json

H = b"JobID|JobName|User|Account|Partition|State|ExitCode|Submit|Start|End|TimelimitRaw|NNodes\n"

def row(i, name=b"job", user=b"alice", account=b"acct", part=b"gpu", state=b"COMPLETED",
        submit=b"2023-01-01T00:00:00", start=b"2023-01-01T00:10:00", end=b"2023-01-01T01:10:00", jobid=None):
    jid = jobid if jobid is not None else str(i).encode()
    return b"|".join([jid, name, user, account, part, state, b"0:0", submit, start, end, b"120", b"1"]) + b"\n"

def w(name, data):
    with open(name, "wb") as f:
        f.write(data)

# Item 1: text.
w("sacct_utf8_name.txt", H + row(1) + row(2, name=b"bad\xff\xfename"))
w("sacct_nul_user.txt", H + row(1, user=b"al\x00ice") + row(2))
w("sacct_escape_account.txt", H + row(1, account=b"\x1b[31mred\x1b[0m") + row(2))
w("sacct_utf8_many_fields.txt", H + row(1, name=b"\xc3", user=b"\xe2\x82", part=b"g\x7fpu") + row(2))
w("sacct_valid_unicode.txt", H + row(1, name="jöb-名前-🚀".encode()) + row(2, user="zoë".encode()))
w("sacct_utf8_unknown_column.txt",
  b"JobID|Comment|State|Submit|Start|End\n1|\xff\xfe\x00|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:10:00\n")
w("sacct_utf8_jobid.txt", H + row(1) + row(2, jobid=b"2\xff"))
w("sacct_utf8_state.txt", H + row(1) + row(2, state=b"COMPLET\xffED"))
w("sacct_utf8_overlong.txt", H + row(1, name=b"\xc0\xaf") + row(2, name=b"\xed\xa0\x80"))
w("sacct_c1_control.txt", H + row(1, name="a\u0085b".encode()) + row(2))
w("sacct_utf8_cluster.txt",
  b"JobID|Cluster|State|Submit|Start|End\n1|ls\xff6|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:10:00\n")
w("sacct_tab_utf8.txt", H.replace(b"|", b"\t") + row(1, name=b"x\xffy").replace(b"|", b"\t"))
w("sacct_utf8_step_folded.txt", H + row(1, name=b"\xff") + row(0, jobid=b"1.batch", name=b"bat\xffch"))

MIRAGE_H = (b"       JobID    JobName    UID               Start              Submit                 End   Priority TimelimitR ExitCode   NNodes\n"
            b"------------ ---------- ------ ------------------- ------------------- ------------------- ---------- ---------- -------- --------\n")
def mrow(i, name=b"train", submit=b"2022-11-01T09:00:00"):
    return b"\t".join([str(i).encode(), name, b"00001", b"2022-11-01T10:00:00", submit, b"2022-11-01T12:00:00", b"1234", b"180", b"0:0", b"2"]) + b"\n"
w("mirage_utf8_name.txt", b"2\n" + MIRAGE_H + mrow(100001, name=b"tr\xffain") + mrow(100002))
w("mirage_bom.txt", b"\xef\xbb\xbf2\n" + MIRAGE_H + mrow(100001) + mrow(100002))
w("mirage_duplicate_column.txt", MIRAGE_H.replace(b"  NNodes", b"JobName ") + mrow(100001))
w("mirage_year_9999.txt", b"2\n" + MIRAGE_H + mrow(100001, submit=b"9999-11-01T09:00:00") + mrow(100002))

def jdoc(jobs, bom=False):
    d = {"meta": {"plugin": {"type": "openapi/dbv0.0.38", "name": "Slurm OpenAPI DB v0.0.38"}}, "errors": [], "jobs": jobs}
    b = json.dumps(d, indent=1).encode()
    return (b"\xef\xbb\xbf" if bom else b"") + b

def jjob(i, name="job", user="alice", submit=1672531200, start=1672531800, end=1672535400, state="COMPLETED"):
    return {"job_id": i, "name": name, "user": user, "account": "acct", "partition": "gpu",
            "cluster": "c1", "state": {"current": state, "reason": "None"},
            "time": {"submission": submit, "eligible": submit, "start": start, "end": end, "limit": 120},
            "exit_code": {"status": "SUCCESS", "return_code": 0}, "steps": []}

w("json_utf8_name.json", jdoc([jjob(1), jjob(2, name="NAMEMARK")]).replace(b"NAMEMARK", b"na\xffme"))
w("json_nul_escape.json", jdoc([jjob(1, user="al\u0000ice"), jjob(2)]))
w("json_lone_surrogate.json", jdoc([jjob(1), jjob(2, name="SURR")]).replace(b'"SURR"', b'"x\\ud800y"'))
w("json_surrogate_pair.json", jdoc([jjob(1, name="rocket-\U0001F680")]))
w("json_bom.json", jdoc([jjob(1), jjob(2)], bom=True))
w("json_year_2200.json", jdoc([jjob(1), jjob(2, start=7258118400, end=7258122000)]))
w("json_all_quarantined.json", jdoc([jjob(1, state="NOT_A_STATE"), jjob(2, end=1)]))
w("json_truncated.json", jdoc([jjob(1), jjob(2)])[:-40])

SWF_HDR = b"; Version: 2.2\n; UnixStartTime: 1672531200\n; MaxNodes: 4\n; MaxProcs: 16\n"
def srow(i, submit=b"0", wait=b"10", run=b"100", status=b"1"):
    return b" ".join([str(i).encode(), submit, wait, run, b"4", b"-1", b"-1", b"4", b"300", b"-1", status, b"7", b"3", b"-1", b"1", b"1", b"-1", b"-1"]) + b"\n"
w("swf_utf8_number.swf", SWF_HDR + srow(1) + srow(2, wait=b"1\xff0"))
w("swf_utf8_comment.swf", b"; Note: caf\xe9 \x00\n" + SWF_HDR + srow(1) + srow(2))
w("swf_bom.swf", b"\xef\xbb\xbf" + SWF_HDR + srow(1) + srow(2))
w("swf_year_after_2100.swf", b"; UnixStartTime: 4102444800\n; MaxNodes: 4\n; MaxProcs: 16\n" + srow(1) + srow(2, submit=b"40000000"))
w("swf_all_unknown.swf", SWF_HDR + b"1" + b" -1" * 17 + b"\n" + b"2" + b" -1" * 17 + b"\n")

# Item 4: byte-order marks.
w("sacct_bom.txt", b"\xef\xbb\xbf" + b"JobID|JobIDRaw|State|Submit|Start|End\n5_1|6|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:10:00\n5_2|7|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:10:00\n")
w("sacct_bom_no_jobidraw.txt", b"\xef\xbb\xbf" + H + row(1) + row(2))
w("sacct_bom_crlf.txt", b"\xef\xbb\xbf" + (H + row(1) + row(2)).replace(b"\n", b"\r\n"))
w("sacct_bom.txt.gz", gzip.compress(b"\xef\xbb\xbf" + H + row(1) + row(2), mtime=0))
w("sacct_bom_only.txt", b"\xef\xbb\xbf")

# Item 10: years, Start 0001-01-01, headers, all quarantined.
w("sacct_year_0000.txt", H + row(1) + row(2, submit=b"0000-01-01T00:00:00", start=b"Unknown", end=b"Unknown"))
w("sacct_year_5138.txt", H + row(1) + row(2, start=b"5138-01-01T00:10:00", end=b"5138-01-01T01:10:00"))
w("sacct_year_9999_end.txt", H + row(1) + row(2, end=b"9999-12-31T23:59:59"))
w("sacct_start_0001.txt", H + row(1) + row(2, start=b"0001-01-01T00:00:00", end=b"Unknown", state=b"CANCELLED"))
w("sacct_epoch_5138.txt", H + row(1) + row(2, submit=b"99999999999", start=b"None", end=b"None"))
w("sacct_year_1969.txt", H + row(1) + row(2, submit=b"1969-12-31T23:59:59", start=b"None", end=b"None"))
w("sacct_year_2100.txt", H + row(1, submit=b"2100-12-31T00:00:00", start=b"2100-12-31T00:10:00", end=b"2100-12-31T01:10:00"))
w("sacct_duplicate_column.txt", b"JobID|JobName|User|JobName|State\n1|a|alice|b|COMPLETED\n")
w("sacct_duplicate_column_case.txt", b"jobid|JobID|State\n1|1|COMPLETED\n")
w("sacct_duplicate_timelimit.txt", b"JobID|TimelimitR|TimelimitRaw|State\n1|10|10|COMPLETED\n")
w("sacct_duplicate_unknown_column.txt", b"JobID|Comment|Comment|State|Submit\n1|x|y|COMPLETED|2023-01-01T00:00:00\n")
w("sacct_no_submit.txt", b"JobID|JobName|State|Start|End\n1|a|COMPLETED|2023-01-01T00:10:00|2023-01-01T01:10:00\n")
w("sacct_all_quarantined.txt", H + row(1, state=b"NOT_A_STATE") + row(2, end=b"2022-01-01T00:00:00") + row(0, jobid=b"3.batch"))

# General malformed rows and inputs.
w("sacct_field_count.txt", H + row(1) + b"2|short|row\n")
w("sacct_orphan_step.txt", H + row(1) + row(0, jobid=b"9.batch"))
w("sacct_steps_folded.txt", H + row(1) + row(0, jobid=b"1.batch") + row(0, jobid=b"1.extern") + row(2))
w("sacct_end_before_start.txt", H + row(1) + row(2, end=b"2023-01-01T00:05:00"))
w("sacct_bad_time.txt", H + row(1) + row(2, submit=b"2023-13-01T00:00:00"))
w("sacct_header_only.txt", H)
w("empty.txt", b"")
w("sacct_fixed_width.txt", b"JobID           JobName  State\n------------ ---------- ----------\n1                  wrap  COMPLETED\n")
w("dup_a.txt", H + row(1) + row(2))
w("dup_b.txt", H + row(2) + row(3))
w("sacct_ok.txt", H + row(1) + row(2))

# Items 5 and 9: sizes (limits lowered by flags so the files stay small)
# and truncated compressed input.
w("sacct_long_line.txt", H + row(1) + row(2, name=b"n" * 5000) + row(3))
w("sacct_long_field.txt", H + row(1) + row(2, name=b"n" * 300) + row(3))
w("sacct_many_separators.txt", H + row(1) + b"|" * 100000 + b"\n" + row(3))
w("sacct_many_columns.txt", b"JobID" + b"|X" * 2000 + b"\n" + row(1))
w("sacct_truncated.txt.gz", gzip.compress(H + b"".join(row(i) for i in range(1, 2001)), mtime=0)[:3000])
w("json_long_job.json", jdoc([jjob(1), jjob(2, name="n" * 5000), jjob(3)]))
w("json_long_name.json", jdoc([jjob(1), jjob(2, name="n" * 300), jjob(3)]))
