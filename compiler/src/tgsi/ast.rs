//! The parsed form of a TGSI shader, close to the text.

/// Which pipeline stage the text declares (`VERT` / `FRAG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ShaderStage {
    /// `VERT`
    Vertex,
    /// `FRAG`
    Fragment,
}

/// TGSI register files that appear in operands and declarations.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum File {
    /// `IN`
    Input,
    /// `OUT`
    Output,
    /// `TEMP`
    Temp,
    /// `CONST`
    Const,
    /// `IMM`
    Imm,
    /// `SAMP`
    Sampler,
    /// `SVIEW`
    SamplerView,
    /// `ADDR`
    Addr,
    /// `SV` (system values)
    SystemValue,
}

impl File {
    /// The file's name as TGSI prints it.
    pub fn name(self) -> &'static str {
        match self {
            File::Input => "IN",
            File::Output => "OUT",
            File::Temp => "TEMP",
            File::Const => "CONST",
            File::Imm => "IMM",
            File::Sampler => "SAMP",
            File::SamplerView => "SVIEW",
            File::Addr => "ADDR",
            File::SystemValue => "SV",
        }
    }

    /// Parses a file name.
    pub fn from_name(s: &str) -> Option<File> {
        Some(match s {
            "IN" => File::Input,
            "OUT" => File::Output,
            "TEMP" => File::Temp,
            "CONST" => File::Const,
            "IMM" => File::Imm,
            "SAMP" => File::Sampler,
            "SVIEW" => File::SamplerView,
            "ADDR" => File::Addr,
            "SV" => File::SystemValue,
            _ => return None,
        })
    }
}

/// A semantic name with its index (`GENERIC[3]`, `COLOR` = `COLOR[0]`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Semantic {
    /// The name.
    pub name: SemanticName,
    /// The index.
    pub index: u32,
}

/// The semantic names this backend knows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SemanticName {
    /// Clip-space position (VS out) or window position (FS in).
    Position,
    /// Colour.
    Color,
    /// Back colour.
    BColor,
    /// Generic varying.
    Generic,
    /// Texture coordinate varying.
    Texcoord,
    /// Fog coordinate.
    Fog,
    /// Point size.
    Psize,
    /// Front facing.
    Face,
    /// Point sprite coordinate.
    Pcoord,
    /// `gl_ClipVertex`: the eye-space vertex user clip planes test (vertex output).
    ClipVertex,
    /// Clip distances, four per register (vertex output): a pixel whose interpolated
    /// distance is negative is clipped.
    ClipDist,
    /// The edge flag (vertex output, .x non-zero: a boundary edge), which st/mesa passes
    /// through from the edge flag attribute when polygons are drawn as lines or points.
    Edgeflag,
}

impl SemanticName {
    /// All names, for parsing.
    pub const ALL: [SemanticName; 12] = [
        SemanticName::Position,
        SemanticName::Color,
        SemanticName::BColor,
        SemanticName::Generic,
        SemanticName::Texcoord,
        SemanticName::Fog,
        SemanticName::Psize,
        SemanticName::Face,
        SemanticName::Pcoord,
        SemanticName::ClipVertex,
        SemanticName::ClipDist,
        SemanticName::Edgeflag,
    ];

    /// The name as TGSI prints it.
    pub fn name(self) -> &'static str {
        match self {
            SemanticName::Position => "POSITION",
            SemanticName::Color => "COLOR",
            SemanticName::BColor => "BCOLOR",
            SemanticName::Generic => "GENERIC",
            SemanticName::Texcoord => "TEXCOORD",
            SemanticName::Fog => "FOG",
            SemanticName::Psize => "PSIZE",
            SemanticName::Face => "FACE",
            SemanticName::Pcoord => "PCOORD",
            SemanticName::ClipVertex => "CLIPVERTEX",
            SemanticName::ClipDist => "CLIPDIST",
            SemanticName::Edgeflag => "EDGEFLAG",
        }
    }
}

impl std::fmt::Display for Semantic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.name.name(), self.index)
    }
}

/// Interpolation qualifier of a fragment input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interp {
    /// `CONSTANT` (flat).
    Constant,
    /// `LINEAR` (screen-space).
    Linear,
    /// `PERSPECTIVE`.
    Perspective,
    /// `COLOR`: follows the rasterizer's flat-shading state; the model interpolates it
    /// perspective-correct unless the driver selects flat.
    Color,
}

/// Texture targets of `SVIEW` declarations and texture instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TexTarget {
    /// `1D`
    D1,
    /// `2D`
    D2,
    /// `3D`
    D3,
    /// `CUBE`
    Cube,
    /// `RECT`
    Rect,
    /// `SHADOW1D`
    Shadow1D,
    /// `SHADOW2D`
    Shadow2D,
    /// `SHADOWRECT`
    ShadowRect,
    /// `1D_ARRAY`
    Array1D,
    /// `2D_ARRAY`
    Array2D,
    /// `SHADOW1D_ARRAY`
    Shadow1DArray,
    /// `SHADOW2D_ARRAY`
    Shadow2DArray,
    /// `SHADOWCUBE`
    ShadowCube,
    /// `2D_MSAA`
    Msaa2D,
    /// `2D_ARRAY_MSAA`
    Msaa2DArray,
    /// `CUBE_ARRAY`
    CubeArray,
    /// `SHADOWCUBE_ARRAY`
    ShadowCubeArray,
    /// `BUFFER`
    Buffer,
    /// `UNKNOWN`
    Unknown,
}

impl TexTarget {
    /// Every target, in TGSI order of this list.
    pub const ALL: [TexTarget; 19] = [
        TexTarget::D1,
        TexTarget::D2,
        TexTarget::D3,
        TexTarget::Cube,
        TexTarget::Rect,
        TexTarget::Shadow1D,
        TexTarget::Shadow2D,
        TexTarget::ShadowRect,
        TexTarget::Array1D,
        TexTarget::Array2D,
        TexTarget::Shadow1DArray,
        TexTarget::Shadow2DArray,
        TexTarget::ShadowCube,
        TexTarget::Msaa2D,
        TexTarget::Msaa2DArray,
        TexTarget::CubeArray,
        TexTarget::ShadowCubeArray,
        TexTarget::Buffer,
        TexTarget::Unknown,
    ];

    /// The name as TGSI prints it.
    pub fn name(self) -> &'static str {
        match self {
            TexTarget::D1 => "1D",
            TexTarget::D2 => "2D",
            TexTarget::D3 => "3D",
            TexTarget::Cube => "CUBE",
            TexTarget::Rect => "RECT",
            TexTarget::Shadow1D => "SHADOW1D",
            TexTarget::Shadow2D => "SHADOW2D",
            TexTarget::ShadowRect => "SHADOWRECT",
            TexTarget::Array1D => "1D_ARRAY",
            TexTarget::Array2D => "2D_ARRAY",
            TexTarget::Shadow1DArray => "SHADOW1D_ARRAY",
            TexTarget::Shadow2DArray => "SHADOW2D_ARRAY",
            TexTarget::ShadowCube => "SHADOWCUBE",
            TexTarget::Msaa2D => "2D_MSAA",
            TexTarget::Msaa2DArray => "2D_ARRAY_MSAA",
            TexTarget::CubeArray => "CUBE_ARRAY",
            TexTarget::ShadowCubeArray => "SHADOWCUBE_ARRAY",
            TexTarget::Buffer => "BUFFER",
            TexTarget::Unknown => "UNKNOWN",
        }
    }
}

/// One `DCL` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    /// Register file.
    pub file: File,
    /// Constant buffer (the first index of the 2D form `CONST[1][0..3]`), else 0.
    pub dim: u32,
    /// First register.
    pub first: u32,
    /// Last register (inclusive).
    pub last: u32,
    /// Usage mask (`DCL IN[0].xy`), 0xF when absent.
    pub usage_mask: u8,
    /// Semantic, when given.
    pub semantic: Option<Semantic>,
    /// Interpolation, when given.
    pub interp: Option<Interp>,
    /// `CENTROID` given.
    pub centroid: bool,
    /// `ARRAY(n)`: the array id an indexed access names (0 when not an array).
    pub array_id: u32,
    /// `SVIEW` target.
    pub target: Option<TexTarget>,
    /// 1-based column of the target word (0 when there is none).
    pub target_col: u32,
    /// Source line.
    pub line: u32,
}

/// The type of an `IMM` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmType {
    /// `FLT32`
    Flt32,
    /// `UINT32`
    Uint32,
    /// `INT32`
    Int32,
}

/// One `IMM` line: four 32-bit lanes as bits.
#[derive(Debug, Clone, PartialEq)]
pub struct Immediate {
    /// Type as written.
    pub ty: ImmType,
    /// Lane bits.
    pub bits: [u32; 4],
}

/// An indirect index `ADDR[n].c + k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Indirect {
    /// File of the index register (`ADDR` or `TEMP`).
    pub file: File,
    /// Its index.
    pub index: u32,
    /// Component read (0..3).
    pub comp: u8,
}

/// A register reference as written: `CONST[1][ADDR[0].x+3]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegRef {
    /// File.
    pub file: File,
    /// 2D dimension (constant buffer), 0 when absent.
    pub dim: u32,
    /// Register index (the offset when indirect).
    pub index: i64,
    /// Indirect addressing.
    pub indirect: Option<Indirect>,
    /// The `(n)` array id after the brackets (0 when absent).
    pub array_id: u32,
}

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrcOperand {
    /// Register.
    pub reg: RegRef,
    /// Swizzle: lane i reads component swz[i].
    pub swz: [u8; 4],
    /// `-` given.
    pub neg: bool,
    /// `|..|` given.
    pub abs: bool,
}

/// A destination operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DstOperand {
    /// Register.
    pub reg: RegRef,
    /// Write mask, bit i = lane i.
    pub mask: u8,
}

/// One numbered instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Opcode name, upper case, without `_SAT`.
    pub opcode: String,
    /// `_SAT` given.
    pub sat: bool,
    /// Destinations.
    pub dst: Vec<DstOperand>,
    /// Sources (sampler operands included, in order).
    pub src: Vec<SrcOperand>,
    /// Texture target of texture instructions.
    pub target: Option<TexTarget>,
    /// 1-based column of the target word (0 when there is none).
    pub target_col: u32,
    /// `:N` label of flow instructions.
    pub label: Option<u32>,
    /// Source line.
    pub line: u32,
}

/// A whole parsed shader.
#[derive(Debug, Clone, PartialEq)]
pub struct Shader {
    /// `VERT` or `FRAG`.
    pub stage: ShaderStage,
    /// `PROPERTY` lines: name and value as written.
    pub properties: Vec<(String, String)>,
    /// Declarations in order.
    pub decls: Vec<Decl>,
    /// Immediates, `IMM[i]` is `imms[i]`.
    pub imms: Vec<Immediate>,
    /// Instructions in order (the END included).
    pub instrs: Vec<Instruction>,
}
