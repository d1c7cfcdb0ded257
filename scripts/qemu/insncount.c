/*
 * insncount.c: a qemu-user plugin that counts the guest instructions a program executes,
 * for deferbench's count tier on emulated instruction sets (docs/counts.md).
 *
 * Arguments (qemu -plugin libinsncount.so,out=FILE,exclude=FILE):
 *   out=FILE      where the count goes at exit, one line "insns N" (default: stderr)
 *   exclude=FILE  function names, one per line: their own instructions are not counted
 *                 (deferbench writes counts.Excluded there: the runtime's clock-paced work)
 *
 * Counting is per translation block: when a block is translated, the plugin counts the
 * instructions in it that belong to no excluded function and asks qemu to call back with
 * that number every time the block runs. qemu ends a block at every branch, so a block runs
 * whole; a fault inside a block (which a Go program meets only at a nil dereference) would
 * count the instructions after it too. The callback adds atomically, so the threads of the
 * guest (one vCPU each under qemu-user) lose nothing to each other.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t total;
static char *out_path;
static char **excluded;
static size_t n_excluded;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* is_excluded reports whether sym, without a ".abi0" suffix, is an excluded function. */
static int is_excluded(const char *sym)
{
    char buf[512];
    size_t n;
    const char *key = sym;

    if (!sym || n_excluded == 0) {
        return 0;
    }
    n = strlen(sym);
    if (n > 5 && n < sizeof(buf) && strcmp(sym + n - 5, ".abi0") == 0) {
        memcpy(buf, sym, n - 5);
        buf[n - 5] = 0;
        key = buf;
    }
    return bsearch(&key, excluded, n_excluded, sizeof(char *), cmp_str) != NULL;
}

static void tb_exec(unsigned int vcpu_index, void *udata)
{
    __atomic_fetch_add(&total, (uint64_t)(uintptr_t)udata, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    uintptr_t counted = 0;

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (!is_excluded(qemu_plugin_insn_symbol(insn))) {
            counted++;
        }
    }
    if (counted > 0) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)counted);
    }
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    uint64_t n = __atomic_load_n(&total, __ATOMIC_SEQ_CST);
    FILE *f = out_path ? fopen(out_path, "w") : stderr;

    if (!f) {
        fprintf(stderr, "insncount: cannot write %s\n", out_path);
        return;
    }
    fprintf(f, "insns %llu\n", (unsigned long long)n);
    if (f != stderr) {
        fclose(f);
    }
}

static int read_excluded(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t cap = 0;

    if (!f) {
        fprintf(stderr, "insncount: exclude=%s: cannot open it\n", path);
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 0) {
            continue;
        }
        if (n_excluded == cap) {
            cap = cap ? 2 * cap : 64;
            excluded = realloc(excluded, cap * sizeof(char *));
        }
        excluded[n_excluded++] = strdup(line);
    }
    fclose(f);
    qsort(excluded, n_excluded, sizeof(char *), cmp_str);
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = strdup(argv[i] + 4);
        } else if (strncmp(argv[i], "exclude=", 8) == 0) {
            if (read_excluded(argv[i] + 8) != 0) {
                return -1;
            }
        } else {
            fprintf(stderr, "insncount: unknown argument %s (want out=FILE, exclude=FILE)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
