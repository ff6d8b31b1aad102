//! Fewer chunk files (issue #11). The splitter makes one chunk per distinct set of lazy parts
//! that share a function: 201 chunks for 13 parts, so the sidebar's list alone fetched and
//! instantiated 40 files before the first conversation title. The sidebar is on every page
//! with the shell, so every chunk it uses is loaded on all of them anyway: those chunks become
//! ONE module here ([`bundle`]), with no byte loaded that was not loaded before, except on the
//! screens without the shell (welcome, access key), which load the sidebar's shared code too.
//!
//! A chunk imports only the main module's memory, table and stack pointer and writes its
//! functions into the shared table with active element segments at fixed offsets (its data
//! segments sit at fixed addresses too); it exports nothing and has no start function. So
//! merging chunks is concatenation with the index spaces renumbered ([`merge_modules`]), and
//! the loader `__wasm_split.js` loads the merged file wherever it loaded one of its members
//! ([`rewrite_loader`]). Anything outside those assumptions is an error, never a guess.

use std::fs;
use std::path::Path;
use wasm_encoder::reencode::{Error as ReencodeError, Reencode};
use wasm_encoder::{
    CodeSection, DataCountSection, DataSection, ElementSection, EntityType, FunctionSection,
    GlobalSection, ImportSection, Module, TypeSection,
};
use wasmparser::{Parser, Payload, TypeRef};

/// One `const __chunk_N = makeLoad(...)` of the loader: its text, its file and its users.
#[derive(Debug, Clone, PartialEq)]
struct ChunkDef {
    ident: String,
    file: String,
    users: Vec<String>,
    /// Byte range of the whole definition (its comment line included) in the loader.
    span: (usize, usize),
}

/// The chunk definitions of a splitter loader, in order.
fn chunk_defs(loader: &str) -> Result<Vec<ChunkDef>, String> {
    const START: &str = "const __chunk_";
    const END: &str = "\n, []);\n";
    let mut defs = Vec::new();
    let mut from = 0;
    while let Some(at) = loader[from..].find(START).map(|i| from + i) {
        let ident_end = loader[at + 6..]
            .find(' ')
            .map(|i| at + 6 + i)
            .ok_or("a chunk definition without a name")?;
        let ident = loader[at + 6..ident_end].to_string();
        // The users: the comment on the line before.
        let line_start = loader[..at.saturating_sub(1)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let comment = loader[line_start..at].trim();
        let users = comment
            .strip_prefix("/*")
            .and_then(|c| c.strip_suffix("*/"))
            .ok_or_else(|| format!("{ident}: no comment naming its users"))?
            .split(',')
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .collect();
        let end = loader[at..]
            .find("\n}\n")
            .map(|i| at + i + 3)
            .ok_or_else(|| format!("{ident}: unterminated definition"))?;
        // Chunks load no other chunk (their dependency list is empty).
        if !loader[end - 1..].starts_with(END) {
            return Err(format!(
                "{ident}: a chunk with dependencies of its own is not supported"
            ));
        }
        let end = end - 1 + END.len();
        let body = &loader[at..end];
        let file = body
            .split("new URL(\"./")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .ok_or_else(|| format!("{ident}: no file"))?
            .to_string();
        defs.push(ChunkDef {
            ident,
            file,
            users,
            span: (line_start, end),
        });
        from = end;
    }
    Ok(defs)
}

/// What the splitter's loader says against what it wrote: every chunk file in `files` has its
/// definition and every definition its file, and `part` has a load function. The loader is
/// read by string search ([`chunk_defs`]), so a new `wasm_split_cli_support` that writes it
/// differently must fail the build here, on the real loader, instead of leaving chunks
/// unmerged or unloaded.
fn check_loader(
    loader: &str,
    defs: &[ChunkDef],
    files: &[String],
    part: &str,
) -> Result<(), String> {
    let mut named: Vec<&str> = defs.iter().map(|d| d.file.as_str()).collect();
    named.sort_unstable();
    let mut written: Vec<&str> = files.iter().map(String::as_str).collect();
    written.sort_unstable();
    if named != written {
        return Err(format!(
            "the splitter's loader defines chunks {named:?} but it wrote {written:?}: its format \
             changed (a new wasm_split_cli_support?), and xtask/src/merge.rs must learn it"
        ));
    }
    if !loader.contains(&format!("export const __wasm_split_load_{part} = ")) {
        return Err(format!(
            "the splitter's loader has no load function for the lazy part `{part}`"
        ));
    }
    Ok(())
}

/// The loader with `members` replaced by one definition `ident` loading `file`, where the
/// first member was; every dependency list names `ident` once instead of its members.
fn rewrite_loader(
    loader: &str,
    defs: &[ChunkDef],
    members: &[&ChunkDef],
    ident: &str,
    file: &str,
) -> Result<String, String> {
    let first = members.first().ok_or("nothing to merge")?;
    let is_member = |name: &str| members.iter().any(|m| m.ident == name);
    let mut users: Vec<&str> = members
        .iter()
        .flat_map(|m| m.users.iter().map(String::as_str))
        .collect();
    users.sort_unstable();
    users.dedup();
    let merged_def = format!(
        "/* {} chunks in one: {} */\nconst {ident} = makeLoad(() => {{\n    \
         const src = fetch(new URL(\"./{file}\", import.meta.url));\n    \
         src.catch(() => {{}});\n    \
         return async (imports) => (WebAssembly.instantiateStreaming(src, imports));\n}}\n, []);\n",
        members.len(),
        users.join(", ")
    );
    let mut out = String::with_capacity(loader.len());
    let mut at = 0;
    for d in defs.iter().filter(|d| is_member(&d.ident)) {
        out.push_str(&loader[at..d.span.0]);
        if d.ident == first.ident {
            out.push_str(&merged_def);
        }
        at = d.span.1;
    }
    out.push_str(&loader[at..]);
    // Dependency lists: `, [__chunk_1, __chunk_2]` at the start of a line.
    let mut result = String::with_capacity(out.len());
    for line in out.split_inclusive('\n') {
        let Some(rest) = line.strip_prefix(", [") else {
            result.push_str(line);
            continue;
        };
        let close = rest.find(']').ok_or("an unterminated dependency list")?;
        let mut deps: Vec<&str> = Vec::new();
        for dep in rest[..close]
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            let dep = if is_member(dep) { ident } else { dep };
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        }
        result.push_str(", [");
        result.push_str(&deps.join(", "));
        result.push_str(&rest[close..]);
    }
    Ok(result)
}

/// Counts of one module's index spaces.
#[derive(Default, Clone, Copy)]
struct Counts {
    types: u32,
    funcs: u32,
    globals: u32,
    elems: u32,
    datas: u32,
}

/// One member's renumbering into the merged module.
struct Renumber {
    base: Counts,
    /// The merged index of each of the member's imported functions / globals / tables /
    /// memories, in the member's import order.
    func_imports: Vec<u32>,
    global_imports: Vec<u32>,
    table_imports: Vec<u32>,
    memory_imports: Vec<u32>,
    /// Imported functions / globals of the merged module (defined ones come after them).
    merged_func_imports: u32,
    merged_global_imports: u32,
}

fn pick(
    imports: &[u32],
    defined_base: u32,
    i: u32,
    what: &str,
) -> Result<u32, ReencodeError<String>> {
    match imports.get(i as usize) {
        Some(m) => Ok(*m),
        None if what == "function" || what == "global" => {
            Ok(defined_base + i - imports.len() as u32)
        }
        None => Err(ReencodeError::UserError(format!(
            "a chunk defines its own {what}"
        ))),
    }
}

impl Reencode for Renumber {
    type Error = String;

    fn type_index(&mut self, ty: u32) -> Result<u32, ReencodeError<String>> {
        Ok(self.base.types + ty)
    }
    fn function_index(&mut self, f: u32) -> Result<u32, ReencodeError<String>> {
        let base = self.merged_func_imports + self.base.funcs;
        pick(&self.func_imports, base, f, "function")
    }
    fn global_index(&mut self, g: u32) -> Result<u32, ReencodeError<String>> {
        let base = self.merged_global_imports + self.base.globals;
        pick(&self.global_imports, base, g, "global")
    }
    fn table_index(&mut self, t: u32) -> Result<u32, ReencodeError<String>> {
        pick(&self.table_imports, 0, t, "table")
    }
    fn memory_index(&mut self, m: u32) -> Result<u32, ReencodeError<String>> {
        pick(&self.memory_imports, 0, m, "memory")
    }
    fn element_index(&mut self, e: u32) -> Result<u32, ReencodeError<String>> {
        Ok(self.base.elems + e)
    }
    fn data_index(&mut self, d: u32) -> Result<u32, ReencodeError<String>> {
        Ok(self.base.datas + d)
    }
}

fn err(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

/// Merges chunk modules into one (see the module docs for what a chunk may contain).
pub fn merge_modules(inputs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    // Pass 1: the merged imports (one per module/name; the same type everywhere) and what each
    // member defines.
    let mut imports: Vec<(String, String, TypeRef)> = Vec::new();
    let mut counts: Vec<Counts> = Vec::new();
    let mut member_imports: Vec<Vec<usize>> = Vec::new();
    for (n, wasm) in inputs.iter().enumerate() {
        let mut c = Counts::default();
        let mut mine = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            match payload.map_err(err)? {
                Payload::Version { .. } | Payload::End(_) | Payload::CustomSection(_) => {}
                Payload::TypeSection(r) => c.types = r.count(),
                Payload::ImportSection(r) => {
                    for i in r.into_imports() {
                        let i = i.map_err(err)?;
                        if !matches!(
                            i.ty,
                            TypeRef::Memory(_) | TypeRef::Table(_) | TypeRef::Global(_)
                        ) {
                            return Err(format!(
                                "chunk {n} imports {}.{}, not a memory, table or global",
                                i.module, i.name
                            ));
                        }
                        let at = match imports
                            .iter()
                            .position(|(m, name, _)| m == i.module && name == i.name)
                        {
                            Some(at) if imports[at].2 == i.ty => at,
                            Some(_) => {
                                return Err(format!(
                                    "chunk {n} imports {}.{} with another type",
                                    i.module, i.name
                                ))
                            }
                            None => {
                                imports.push((i.module.into(), i.name.into(), i.ty));
                                imports.len() - 1
                            }
                        };
                        mine.push(at);
                    }
                }
                Payload::FunctionSection(r) => c.funcs = r.count(),
                Payload::GlobalSection(r) => c.globals = r.count(),
                Payload::ElementSection(r) => c.elems = r.count(),
                Payload::DataSection(r) => c.datas = r.count(),
                // The splitter writes an empty export section.
                Payload::ExportSection(r) if r.count() == 0 => {}
                Payload::DataCountSection { .. } | Payload::CodeSectionStart { .. } => {}
                Payload::CodeSectionEntry(_) => {}
                other => {
                    return Err(format!(
                        "chunk {n} has a section a chunk should not have: {other:?}"
                    ))
                }
            }
        }
        counts.push(c);
        member_imports.push(mine);
    }
    let merged_index = |kind: fn(&TypeRef) -> bool, at: usize| -> u32 {
        imports[..at].iter().filter(|(_, _, t)| kind(t)).count() as u32
    };
    let is_func = |t: &TypeRef| matches!(t, TypeRef::Func(_));
    let is_global = |t: &TypeRef| matches!(t, TypeRef::Global(_));
    let is_table = |t: &TypeRef| matches!(t, TypeRef::Table(_));
    let is_memory = |t: &TypeRef| matches!(t, TypeRef::Memory(_));
    let merged_func_imports = imports.iter().filter(|(_, _, t)| is_func(t)).count() as u32;
    let merged_global_imports = imports.iter().filter(|(_, _, t)| is_global(t)).count() as u32;

    // Pass 2: every section, renumbered.
    let (mut types, mut import_sec, mut funcs, mut globals) = (
        TypeSection::new(),
        ImportSection::new(),
        FunctionSection::new(),
        GlobalSection::new(),
    );
    let (mut elems, mut code, mut data) = (
        ElementSection::new(),
        CodeSection::new(),
        DataSection::new(),
    );
    let mut base = Counts::default();
    for (n, wasm) in inputs.iter().enumerate() {
        let pick_kind = |kind: fn(&TypeRef) -> bool| -> Vec<u32> {
            member_imports[n]
                .iter()
                .filter(|at| kind(&imports[**at].2))
                .map(|at| merged_index(kind, *at))
                .collect()
        };
        let mut r = Renumber {
            base,
            func_imports: pick_kind(is_func),
            global_imports: pick_kind(is_global),
            table_imports: pick_kind(is_table),
            memory_imports: pick_kind(is_memory),
            merged_func_imports,
            merged_global_imports,
        };
        for payload in Parser::new(0).parse_all(wasm) {
            match payload.map_err(err)? {
                Payload::TypeSection(s) => r.parse_type_section(&mut types, s).map_err(err)?,
                Payload::FunctionSection(s) => {
                    r.parse_function_section(&mut funcs, s).map_err(err)?
                }
                Payload::GlobalSection(s) => {
                    r.parse_global_section(&mut globals, s).map_err(err)?
                }
                Payload::ElementSection(s) => {
                    r.parse_element_section(&mut elems, s).map_err(err)?
                }
                Payload::CodeSectionEntry(body) => {
                    r.parse_function_body(&mut code, body).map_err(err)?
                }
                Payload::DataSection(s) => r.parse_data_section(&mut data, s).map_err(err)?,
                _ => {}
            }
        }
        let c = counts[n];
        base.types += c.types;
        base.funcs += c.funcs;
        base.globals += c.globals;
        base.elems += c.elems;
        base.datas += c.datas;
    }
    // The imports (memories, tables and globals: no type index to renumber).
    for (module, name, ty) in &imports {
        let ty: EntityType = wasm_encoder::reencode::RoundtripReencoder
            .entity_type(*ty)
            .map_err(err)?;
        import_sec.import(module, name, ty);
    }
    let mut module = Module::new();
    module.section(&types).section(&import_sec).section(&funcs);
    if base.globals > 0 {
        module.section(&globals);
    }
    if base.elems > 0 {
        module.section(&elems);
    }
    module.section(&DataCountSection { count: base.datas });
    module.section(&code);
    if base.datas > 0 {
        module.section(&data);
    }
    Ok(module.finish())
}

/// Merges every chunk the lazy part `part` uses into one file `chunk_{name}.wasm` in
/// `split_dir` and points the loader at it. Returns how many chunks became one.
pub fn bundle(split_dir: &Path, part: &str, name: &str) -> Result<usize, String> {
    let loader_path = split_dir.join("__wasm_split.js");
    let loader =
        fs::read_to_string(&loader_path).map_err(|e| format!("{}: {e}", loader_path.display()))?;
    let defs = chunk_defs(&loader)?;
    let files: Vec<String> = fs::read_dir(split_dir)
        .map_err(|e| format!("{}: {e}", split_dir.display()))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("chunk_") && n.ends_with(".wasm"))
        .collect();
    check_loader(&loader, &defs, &files, part)?;
    let members: Vec<&ChunkDef> = defs
        .iter()
        .filter(|d| d.users.iter().any(|u| u == part))
        .collect();
    if members.len() < 2 {
        return Ok(members.len());
    }
    let mut inputs = Vec::new();
    for m in &members {
        let p = split_dir.join(&m.file);
        inputs.push(fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    let merged =
        merge_modules(&inputs).map_err(|e| format!("merging the chunks of {part}: {e}"))?;
    let file = format!("chunk_{name}.wasm");
    fs::write(split_dir.join(&file), merged).map_err(|e| e.to_string())?;
    let ident = format!("__chunk_{name}");
    let loader = rewrite_loader(&loader, &defs, &members, &ident, &file)?;
    fs::write(&loader_path, loader).map_err(|e| e.to_string())?;
    for m in &members {
        fs::remove_file(split_dir.join(&m.file)).map_err(|e| e.to_string())?;
    }
    Ok(members.len())
}

/// How many bytes (raw, before `wasm-opt`) a lazy part may load needlessly, per file it is
/// spared, when chunks are grouped ([`group_by_users`]). On Lighthouse's phone network a file
/// costs a round trip (150 ms) shared by six connections, ≈ 25 ms, the time of ≈ 5 KB gzip
/// (≈ 12 KB raw); this spends at most ≈ 4 KB gzip a file.
pub const WASTE_PER_FILE: u64 = 10_000;

/// Groups chunks (their users and raw sizes) into files: starting from one group a chunk,
/// merges the two groups that cost least per file they save, while that is at most
/// `waste_per_file`. Merging groups A and B makes each part that uses one but not the other
/// load the other too (the waste: `size(B)` for each part only in A's users, and so on), and
/// spares every part that uses both one file. Returns the groups of two or more, as indices.
pub fn group_by_users(chunks: &[(Vec<String>, u64)], waste_per_file: u64) -> Vec<Vec<usize>> {
    let mut groups: Vec<(Vec<&str>, u64, Vec<usize>)> = chunks
        .iter()
        .enumerate()
        .map(|(i, (users, size))| {
            let mut u: Vec<&str> = users.iter().map(String::as_str).collect();
            u.sort_unstable();
            u.dedup();
            (u, *size, vec![i])
        })
        .collect();
    loop {
        let mut best: Option<(u64, usize, usize)> = None;
        for i in 0..groups.len() {
            for j in i + 1..groups.len() {
                let (ua, sa, _) = &groups[i];
                let (ub, sb, _) = &groups[j];
                let both = ua.iter().filter(|u| ub.contains(u)).count() as u64;
                if both == 0 {
                    continue;
                }
                let only_a = ua.len() as u64 - both;
                let only_b = ub.len() as u64 - both;
                // Per file saved, rounded up; ties go to the first pair found.
                let cost = (sb * only_a + sa * only_b).div_ceil(both);
                if cost <= waste_per_file && best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, i, j));
                }
            }
        }
        let Some((_, i, j)) = best else { break };
        let (ub, sb, mb) = groups.remove(j);
        let (ua, sa, ma) = &mut groups[i];
        for u in ub {
            if !ua.contains(&u) {
                ua.push(u);
            }
        }
        ua.sort_unstable();
        *sa += sb;
        ma.extend(mb);
    }
    let mut out: Vec<Vec<usize>> = groups
        .into_iter()
        .map(|(_, _, mut m)| {
            m.sort_unstable();
            m
        })
        .filter(|m| m.len() > 1)
        .collect();
    out.sort();
    out
}

/// Merges the chunks that are not in the shell's bundle into groups ([`group_by_users`]): a
/// lazy part then loads a few files instead of up to a hundred. Each chunk is still loaded
/// once, with its data and table slots where they were, only sometimes earlier than before.
/// Returns (chunks, files) merged.
pub fn bundle_groups(split_dir: &Path, waste_per_file: u64) -> Result<(usize, usize), String> {
    let loader_path = split_dir.join("__wasm_split.js");
    let mut loader =
        fs::read_to_string(&loader_path).map_err(|e| format!("{}: {e}", loader_path.display()))?;
    let defs = chunk_defs(&loader)?;
    let candidates: Vec<&ChunkDef> = defs.iter().filter(|d| d.ident != "__chunk_shell").collect();
    let mut sized = Vec::new();
    for d in &candidates {
        let p = split_dir.join(&d.file);
        let len = fs::metadata(&p)
            .map_err(|e| format!("{}: {e}", p.display()))?
            .len();
        sized.push((d.users.clone(), len));
    }
    let groups = group_by_users(&sized, waste_per_file);
    let mut merged_chunks = 0;
    for (n, group) in groups.iter().enumerate() {
        let idents: Vec<&str> = group
            .iter()
            .map(|&i| candidates[i].ident.as_str())
            .collect();
        // The loader changes with every group: read its definitions again.
        let defs = chunk_defs(&loader)?;
        let members: Vec<&ChunkDef> = defs
            .iter()
            .filter(|d| idents.contains(&d.ident.as_str()))
            .collect();
        if members.len() != idents.len() {
            return Err(format!(
                "group {n}: chunks {idents:?} not all in the loader"
            ));
        }
        let mut inputs = Vec::new();
        for m in &members {
            let p = split_dir.join(&m.file);
            inputs.push(fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?);
        }
        let merged = merge_modules(&inputs).map_err(|e| format!("merging group {n}: {e}"))?;
        let file = format!("chunk_g{n}.wasm");
        fs::write(split_dir.join(&file), merged).map_err(|e| e.to_string())?;
        loader = rewrite_loader(&loader, &defs, &members, &format!("__chunk_g{n}"), &file)?;
        for m in &members {
            fs::remove_file(split_dir.join(&m.file)).map_err(|e| e.to_string())?;
        }
        merged_chunks += members.len();
    }
    fs::write(&loader_path, loader).map_err(|e| e.to_string())?;
    Ok((merged_chunks, groups.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{
        ConstExpr, Elements, Function, GlobalType, Instruction, MemoryType, RefType, TableType,
        ValType,
    };

    /// A chunk like the splitter's: imports memory, table (and maybe the stack pointer); two
    /// functions, the second calling the first; both written into the table at `slot`; a
    /// data segment at `addr`.
    fn chunk(slot: i32, addr: i32, value: i32, with_global: bool) -> Vec<u8> {
        let mut types = TypeSection::new();
        types.ty().function([], [ValType::I32]);
        let mut imports = ImportSection::new();
        imports.import(
            "__wasm_split",
            "memory",
            MemoryType {
                minimum: 1,
                maximum: None,
                memory64: false,
                shared: false,
                page_size_log2: None,
            },
        );
        imports.import(
            "__wasm_split",
            "__indirect_function_table",
            TableType {
                element_type: RefType::FUNCREF,
                minimum: 16,
                maximum: None,
                table64: false,
                shared: false,
            },
        );
        if with_global {
            imports.import(
                "__wasm_split",
                "__wasm_split_shared0",
                GlobalType {
                    val_type: ValType::I32,
                    mutable: true,
                    shared: false,
                },
            );
        }
        let mut funcs = FunctionSection::new();
        funcs.function(0).function(0);
        let mut elems = ElementSection::new();
        elems.active(
            None,
            &ConstExpr::i32_const(slot),
            Elements::Functions(std::borrow::Cow::Borrowed(&[1, 0])),
        );
        let mut code = CodeSection::new();
        let mut f0 = Function::new([]);
        f0.instruction(&Instruction::I32Const(value))
            .instruction(&Instruction::End);
        let mut f1 = Function::new([]);
        f1.instruction(&Instruction::Call(0));
        if with_global {
            f1.instruction(&Instruction::GlobalGet(0))
                .instruction(&Instruction::I32Add);
        }
        f1.instruction(&Instruction::End);
        code.function(&f0).function(&f1);
        let mut data = DataSection::new();
        data.active(0, &ConstExpr::i32_const(addr), b"xy".iter().copied());
        let mut m = Module::new();
        // An empty export section, as the splitter writes it.
        m.section(&types)
            .section(&imports)
            .section(&funcs)
            .section(&wasm_encoder::ExportSection::new())
            .section(&elems)
            .section(&DataCountSection { count: 1 })
            .section(&code)
            .section(&data);
        m.finish()
    }

    #[test]
    fn merged_chunks_keep_their_table_slots_calls_globals_and_data() {
        let merged = merge_modules(&[chunk(2, 100, 7, true), chunk(5, 200, 9, false)]).unwrap();
        wasmparser::Validator::new()
            .validate_all(&merged)
            .expect("a valid module");
        let (mut imports, mut slots, mut calls, mut data_at) =
            (0, Vec::new(), Vec::new(), Vec::new());
        for p in Parser::new(0).parse_all(&merged) {
            match p.unwrap() {
                Payload::ImportSection(r) => imports = r.into_imports().count(),
                Payload::ElementSection(r) => {
                    for e in r {
                        let e = e.unwrap();
                        let wasmparser::ElementKind::Active { offset_expr, .. } = e.kind else {
                            panic!("passive")
                        };
                        let mut ops = offset_expr.get_operators_reader();
                        let wasmparser::Operator::I32Const { value } = ops.read().unwrap() else {
                            panic!("offset")
                        };
                        let wasmparser::ElementItems::Functions(f) = e.items else {
                            panic!("items")
                        };
                        let f: Vec<u32> = f.into_iter().map(Result::unwrap).collect();
                        slots.push((value, f));
                    }
                }
                Payload::CodeSectionEntry(body) => {
                    for op in body.get_operators_reader().unwrap() {
                        if let wasmparser::Operator::Call { function_index } = op.unwrap() {
                            calls.push(function_index);
                        }
                    }
                }
                Payload::DataSection(r) => {
                    for d in r {
                        let wasmparser::DataKind::Active { offset_expr, .. } = d.unwrap().kind
                        else {
                            panic!("passive data")
                        };
                        if let wasmparser::Operator::I32Const { value } =
                            offset_expr.get_operators_reader().read().unwrap()
                        {
                            data_at.push(value);
                        }
                    }
                }
                _ => {}
            }
        }
        assert_eq!(imports, 3, "memory, table and the stack pointer once");
        assert_eq!(slots, [(2, vec![1, 0]), (5, vec![3, 2])]);
        assert_eq!(calls, [0, 2], "each chunk's call goes to its own function");
        assert_eq!(data_at, [100, 200]);
    }

    #[test]
    fn a_chunk_with_an_export_is_refused() {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], []);
        let mut funcs = FunctionSection::new();
        funcs.function(0);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export("f", wasm_encoder::ExportKind::Func, 0);
        let mut code = CodeSection::new();
        let mut f = Function::new([]);
        f.instruction(&Instruction::End);
        code.function(&f);
        m.section(&types)
            .section(&funcs)
            .section(&exports)
            .section(&code);
        let e = merge_modules(&[m.finish(), chunk(1, 0, 1, false)]).unwrap_err();
        assert!(e.contains("should not have"), "{e}");
    }

    const LOADER: &str = "import { initSync } from \"./agent_canvas.js\";\n\
/* a, sidebar */\n\
const __chunk_1 = makeLoad(() => {\n    const src = fetch(new URL(\"./chunk_1.wasm\", import.meta.url));\n}\n, []);\n\
/* a, b */\n\
const __chunk_2 = makeLoad(() => {\n    const src = fetch(new URL(\"./chunk_2.wasm\", import.meta.url));\n}\n, []);\n\
/* b, sidebar */\n\
const __chunk_3 = makeLoad(() => {\n    const src = fetch(new URL(\"./chunk_3.wasm\", import.meta.url));\n}\n, []);\n\
export const __wasm_split_load_a = wrapAsyncCb(makeLoad(() => {\n    x\n}\n, [__chunk_1, __chunk_2]));\n\
export const __wasm_split_load_sidebar = wrapAsyncCb(makeLoad(() => {\n    x\n}\n, [__chunk_1, __chunk_3]));\n";

    #[test]
    fn the_loader_loads_the_bundle_wherever_it_loaded_a_member() {
        let defs = chunk_defs(LOADER).unwrap();
        assert_eq!(
            defs.iter()
                .map(|d| (d.ident.as_str(), d.file.as_str()))
                .collect::<Vec<_>>(),
            [
                ("__chunk_1", "chunk_1.wasm"),
                ("__chunk_2", "chunk_2.wasm"),
                ("__chunk_3", "chunk_3.wasm")
            ]
        );
        assert_eq!(defs[2].users, ["b", "sidebar"]);
        let members: Vec<&ChunkDef> = defs
            .iter()
            .filter(|d| d.users.iter().any(|u| u == "sidebar"))
            .collect();
        let out =
            rewrite_loader(LOADER, &defs, &members, "__chunk_shell", "chunk_shell.wasm").unwrap();
        assert!(
            !out.contains("__chunk_1") && !out.contains("__chunk_3"),
            "{out}"
        );
        assert!(
            out.contains("/* 2 chunks in one: a, b, sidebar */\nconst __chunk_shell = makeLoad(")
        );
        assert!(out.contains("fetch(new URL(\"./chunk_shell.wasm\", import.meta.url))"));
        assert!(out.contains("const __chunk_2 = makeLoad("), "{out}");
        assert!(out.contains(", [__chunk_shell, __chunk_2]));\n"), "{out}");
        assert!(out.contains(", [__chunk_shell]));\n"), "{out}");
        // The definition comes before its first use, where the first member was.
        assert!(out.find("const __chunk_shell").unwrap() < out.find("const __chunk_2").unwrap());
        assert_eq!(chunk_defs(&out).unwrap().len(), 2);
    }

    #[test]
    fn a_loader_that_does_not_match_its_chunk_files_stops_the_build() {
        let defs = chunk_defs(LOADER).unwrap();
        let files = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let all = files(&["chunk_3.wasm", "chunk_1.wasm", "chunk_2.wasm"]);
        assert_eq!(check_loader(LOADER, &defs, &all, "sidebar"), Ok(()));
        // A chunk written but not found in the loader (its definition written another way).
        let extra = files(&[
            "chunk_1.wasm",
            "chunk_2.wasm",
            "chunk_3.wasm",
            "chunk_4.wasm",
        ]);
        let e = check_loader(LOADER, &defs, &extra, "sidebar").unwrap_err();
        assert!(e.contains("format"), "{e}");
        // No definition found at all.
        let e = check_loader("export const x = 1;", &[], &all, "sidebar").unwrap_err();
        assert!(e.contains("chunk_1.wasm"), "{e}");
        // A part the loader has no load function for.
        let e = check_loader(LOADER, &defs, &all, "shell").unwrap_err();
        assert!(e.contains("`shell`"), "{e}");
    }

    fn users(list: &[(&[&str], u64)]) -> Vec<(Vec<String>, u64)> {
        list.iter()
            .map(|(u, s)| (u.iter().map(|x| x.to_string()).collect(), *s))
            .collect()
    }

    #[test]
    fn chunks_group_by_who_loads_them_within_the_waste_allowed() {
        // The same users: merging wastes nothing, whatever the sizes.
        let same = users(&[(&["a", "b"], 900_000), (&["b", "a"], 5), (&["a", "b"], 7)]);
        assert_eq!(group_by_users(&same, 0), vec![vec![0, 1, 2]]);
        // No user in common: never one file (nobody would be spared one).
        let apart = users(&[(&["a"], 1), (&["b"], 1)]);
        assert_eq!(group_by_users(&apart, u64::MAX), Vec::<Vec<usize>>::new());
        // A small chunk only `a` uses joins a large one `a` and `b` use: `b` loads 100 bytes
        // more and saves `a` one file — within 100, not within 99.
        let small = users(&[(&["a", "b"], 50_000), (&["a"], 100)]);
        assert_eq!(group_by_users(&small, 100), vec![vec![0, 1]]);
        assert_eq!(group_by_users(&small, 99), Vec::<Vec<usize>>::new());
        // The cost is per file saved: `x` (users a, b, c) and `y` (a, b, d) spare a and b one
        // file each; c loads y (300) and d loads x (100): 400 / 2 = 200.
        let shared = users(&[(&["a", "b", "c"], 100), (&["a", "b", "d"], 300)]);
        assert_eq!(group_by_users(&shared, 200), vec![vec![0, 1]]);
        assert_eq!(group_by_users(&shared, 199), Vec::<Vec<usize>>::new());
        // The cheapest merge first: 2 and 3 (same users) before 0 and 1 would pull 2 and 3 in.
        let order = users(&[
            (&["p"], 10_000),
            (&["p", "q"], 10_000),
            (&["q"], 10),
            (&["q"], 20),
        ]);
        assert_eq!(group_by_users(&order, 0), vec![vec![2, 3]]);
        assert_eq!(group_by_users(&order, 10_000), vec![vec![0, 1, 2, 3]]);
    }
}
