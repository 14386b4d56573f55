"""scripts/measure-change-cost.py's parsing: strace -c summaries, callgrind totals and
callgrind_annotate listings (no process is traced here)."""
import importlib.util
import os
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "scripts", "measure-change-cost.py")
spec = importlib.util.spec_from_file_location("measure_change_cost", SCRIPT)
cost = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cost)

STRACE = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 41.20    0.012000           4      3012           pwrite64
 30.00    0.008000           2      2410           fcntl
  9.10    0.002000           0       640        12 read
  0.00    0.000000           0         1         1 access
  0.00    0.000000           0         1           execve
------ ----------- ----------- --------- --------- ----------------
100.00    0.022000           3      6064        13 total
"""

CALLGRIND = """\
version: 1
creator: callgrind-3.19.0
cmd:  fetchd --framing ndjson --watch off
events: Ir
summary: 123456789

fl=(1) ???
fn=(1) main
0 5
totals: 123456790
"""

ANNOTATE = """\
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
5,216,182 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                  file:function
--------------------------------------------------------------------------------
5,216,182 (100.0%)  ???:0x000000000001ab70 [/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2]
4,038,898 (77.43%)  ./csu/../csu/libc-start.c:__libc_start_main@@GLIBC_2.34 [/usr/lib/x86_64-linux-gnu/libc.so.6]
4,036,072 (77.38%)  ???:$s6Server0A0C6handleyyF [/tmp/fetchd]
  812,004 (15.57%)  *  sqlite3.c:sqlite3VdbeExec [/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6]
      300 ( 0.01%)  ???:ns::f(int) [/tmp/fetchd]
3,900,000 (74.77%)  //<compiler-generated>:$s6Server0A0C6handleyyF
"""


class ChangeCostParsingTests(unittest.TestCase):
    def test_strace_summary_by_name_without_the_total(self):
        self.assertEqual(cost.parse_strace_counts(STRACE),
                         {"pwrite64": 3012, "fcntl": 2410, "read": 640, "access": 1, "execve": 1})

    def test_strace_summary_adds_up_repeated_names(self):
        text = STRACE + "  1.00    0.000100           1        10           read\n"
        self.assertEqual(cost.parse_strace_counts(text)["read"], 650)

    def test_an_empty_strace_summary(self):
        self.assertEqual(cost.parse_strace_counts(""), {})

    def test_callgrind_totals_over_summary(self):
        self.assertEqual(cost.parse_callgrind_total(CALLGRIND), 123456790)
        self.assertEqual(cost.parse_callgrind_total(CALLGRIND.replace("totals:", "# ")), 123456789)
        with self.assertRaises(ValueError):
            cost.parse_callgrind_total("events: Ir\n")

    def test_annotate_functions_one_per_name(self):
        functions = cost.parse_annotate(ANNOTATE)
        self.assertEqual(functions["$s6Server0A0C6handleyyF"], 4036072)  # the larger of its two files
        self.assertEqual(functions["sqlite3VdbeExec"], 812004)
        self.assertEqual(functions["__libc_start_main@@GLIBC_2.34"], 4038898)
        self.assertEqual(functions["ns::f(int)"], 300)
        self.assertNotIn("PROGRAM TOTALS", functions)
        self.assertEqual(len(functions), 5)

    def test_annotate_self_counts_add_up_a_functions_files(self):
        functions = cost.parse_annotate(ANNOTATE, combine=lambda a, b: a + b)
        self.assertEqual(functions["$s6Server0A0C6handleyyF"], 4036072 + 3900000)

    def test_the_answer_split_counts_parts_dumped_before_a_write_as_before_the_answer(self):
        part = "version: 1\ndesc: Trigger: --dump-before=%s\nevents: Ir\nsummary: %d\n"
        parts = [cost.parse_dump_part(part % ("read", 7)), cost.parse_dump_part(part % ("write", 100)),
                 cost.parse_dump_part(part % ("read", 20)), cost.parse_dump_part(part % ("write", 90)),
                 cost.parse_dump_part("version: 1\ndesc: Trigger: Program termination\nsummary: 5\n")]
        self.assertEqual(parts[1], ("--dump-before=write", 100))
        self.assertEqual(cost.answer_split(parts), (190, 32))

    def test_per_change_subtracts_the_zero_run(self):
        self.assertEqual(cost.per_change({"read": 130, "pwrite64": 70}, {"read": 100, "brk": 10}, 10),
                         {"read": 3.0, "pwrite64": 7.0, "brk": -1.0})


if __name__ == "__main__":
    unittest.main()
