//! Vertex attribute formats: the Gallium formats st/mesa hands a driver for GL's vertex
//! arrays, and each one's conversion to 32-bit floats.
//!
//! The model's vertex fetch converts some component types itself (hwdocs `AttrType`, MODEL).
//! The others are converted on the CPU at draw time into the batch (vertex_translate.rs), so
//! the screen takes every format Mesa's u_vbuf would otherwise convert. With even one format
//! missing, u_vbuf sits in front of every draw of every application (its `fallback_always`),
//! whatever formats the application uses: about 6% of drawoverhead test 6's CPU time.

use sgx_hwdocs::render::AttrType;

/// How a vertex format stores its components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompType {
    /// IEEE float (16, 32 or 64 bits).
    Float,
    /// Signed 16.16 fixed point (GL_FIXED).
    Fixed,
    /// Unsigned normalized: x / (2^bits - 1).
    Unorm,
    /// Signed normalized: max(x / (2^(bits-1) - 1), -1).
    Snorm,
    /// Unsigned integer, converted to its float value.
    Uscaled,
    /// Signed integer, converted to its float value.
    Sscaled,
    /// Pure unsigned integer. No shader reads integer attributes (`PIPE_CAP_INTEGERS` is 0),
    /// so these convert as `Uscaled` does.
    Uint,
    /// Pure signed integer, converted as `Sscaled` is (see `Uint`).
    Sint,
}

macro_rules! vertex_formats {
    ($($name:ident: $ty:ident $bits:literal x $comps:literal),* $(,)?) => {
        /// Vertex attribute formats (`PIPE_FORMAT_*` names).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types, missing_docs)]
        pub enum VertexFormat {
            $($name),*
        }

        impl VertexFormat {
            /// Every vertex format.
            pub const ALL: &'static [VertexFormat] = &[$(VertexFormat::$name),*];

            /// Component type, bits per component and component count.
            pub fn layout(self) -> (CompType, u32, u32) {
                match self {
                    $(VertexFormat::$name => (CompType::$ty, $bits, $comps)),*
                }
            }
        }
    };
}

// Bits per component and component counts: Gallium's vertex formats (GL's array types), not
// hardware facts.
vertex_formats! {
    R32_FLOAT: Float 32 x 1,
    R32G32_FLOAT: Float 32 x 2,
    R32G32B32_FLOAT: Float 32 x 3,
    R32G32B32A32_FLOAT: Float 32 x 4,
    R16_FLOAT: Float 16 x 1,
    R16G16_FLOAT: Float 16 x 2,
    R16G16B16_FLOAT: Float 16 x 3,
    R16G16B16A16_FLOAT: Float 16 x 4,
    R64_FLOAT: Float 64 x 1,
    R64G64_FLOAT: Float 64 x 2,
    R64G64B64_FLOAT: Float 64 x 3,
    R64G64B64A64_FLOAT: Float 64 x 4,
    R32_FIXED: Fixed 32 x 1,
    R32G32_FIXED: Fixed 32 x 2,
    R32G32B32_FIXED: Fixed 32 x 3,
    R32G32B32A32_FIXED: Fixed 32 x 4,
    R32_UNORM: Unorm 32 x 1,
    R32G32_UNORM: Unorm 32 x 2,
    R32G32B32_UNORM: Unorm 32 x 3,
    R32G32B32A32_UNORM: Unorm 32 x 4,
    R32_SNORM: Snorm 32 x 1,
    R32G32_SNORM: Snorm 32 x 2,
    R32G32B32_SNORM: Snorm 32 x 3,
    R32G32B32A32_SNORM: Snorm 32 x 4,
    R32_USCALED: Uscaled 32 x 1,
    R32G32_USCALED: Uscaled 32 x 2,
    R32G32B32_USCALED: Uscaled 32 x 3,
    R32G32B32A32_USCALED: Uscaled 32 x 4,
    R32_SSCALED: Sscaled 32 x 1,
    R32G32_SSCALED: Sscaled 32 x 2,
    R32G32B32_SSCALED: Sscaled 32 x 3,
    R32G32B32A32_SSCALED: Sscaled 32 x 4,
    R16_UNORM: Unorm 16 x 1,
    R16G16_UNORM: Unorm 16 x 2,
    R16G16B16_UNORM: Unorm 16 x 3,
    R16G16B16A16_UNORM: Unorm 16 x 4,
    R16_SNORM: Snorm 16 x 1,
    R16G16_SNORM: Snorm 16 x 2,
    R16G16B16_SNORM: Snorm 16 x 3,
    R16G16B16A16_SNORM: Snorm 16 x 4,
    R16_USCALED: Uscaled 16 x 1,
    R16G16_USCALED: Uscaled 16 x 2,
    R16G16B16_USCALED: Uscaled 16 x 3,
    R16G16B16A16_USCALED: Uscaled 16 x 4,
    R16_SSCALED: Sscaled 16 x 1,
    R16G16_SSCALED: Sscaled 16 x 2,
    R16G16B16_SSCALED: Sscaled 16 x 3,
    R16G16B16A16_SSCALED: Sscaled 16 x 4,
    R16G16B16_UINT: Uint 16 x 3,
    R16G16B16_SINT: Sint 16 x 3,
    R8_UNORM: Unorm 8 x 1,
    R8G8_UNORM: Unorm 8 x 2,
    R8G8B8_UNORM: Unorm 8 x 3,
    R8G8B8A8_UNORM: Unorm 8 x 4,
    // GL_BGRA colour arrays (ARB_vertex_array_bgra): components stored B, G, R, A.
    B8G8R8A8_UNORM: Unorm 8 x 4,
    R8_SNORM: Snorm 8 x 1,
    R8G8_SNORM: Snorm 8 x 2,
    R8G8B8_SNORM: Snorm 8 x 3,
    R8G8B8A8_SNORM: Snorm 8 x 4,
    R8_USCALED: Uscaled 8 x 1,
    R8G8_USCALED: Uscaled 8 x 2,
    R8G8B8_USCALED: Uscaled 8 x 3,
    R8G8B8A8_USCALED: Uscaled 8 x 4,
    R8_SSCALED: Sscaled 8 x 1,
    R8G8_SSCALED: Sscaled 8 x 2,
    R8G8B8_SSCALED: Sscaled 8 x 3,
    R8G8B8A8_SSCALED: Sscaled 8 x 4,
}

impl VertexFormat {
    /// Bytes of one element.
    pub fn size_B(self) -> u32 {
        let (_, bits, comps) = self.layout();
        bits / 8 * comps
    }

    /// Component count.
    pub fn comps(self) -> u32 {
        self.layout().2
    }

    /// The model's fetch type when it converts this format itself; None when the CPU
    /// converts it to floats at draw time.
    pub fn native(self) -> Option<AttrType> {
        if self == VertexFormat::B8G8R8A8_UNORM {
            return None;
        }
        match self.layout() {
            (CompType::Float, 32, _) => Some(AttrType::FLOAT32),
            (CompType::Unorm, 8, _) => Some(AttrType::UNORM8),
            (CompType::Uscaled, 8, _) => Some(AttrType::USCALED8),
            (CompType::Snorm, 16, _) => Some(AttrType::SNORM16),
            (CompType::Sscaled, 16, _) => Some(AttrType::SSCALED16),
            (CompType::Unorm, 16, _) => Some(AttrType::UNORM16),
            (CompType::Uscaled, 16, _) => Some(AttrType::USCALED16),
            (CompType::Uscaled, 32, _) => Some(AttrType::USCALED32),
            _ => None,
        }
    }

    /// How the model fetches this attribute: component type, count and bytes per element
    /// (a converted format is fetched as the floats it was converted to).
    pub fn hw(self) -> (AttrType, u32, u32) {
        match self.native() {
            Some(t) => (t, self.comps(), self.size_B()),
            None => (AttrType::FLOAT32, self.comps(), self.comps() * 4),
        }
    }

    /// The element in `src` (at least `size_B` bytes) as floats, into `out[..comps]`.
    pub fn to_f32(self, src: &[u8], out: &mut [f32]) {
        let (ty, bits, comps) = self.layout();
        let bytes_per = (bits / 8) as usize;
        for (i, o) in out.iter_mut().take(comps as usize).enumerate() {
            let c = &src[i * bytes_per..(i + 1) * bytes_per];
            let mut raw = [0u8; 8];
            raw[..bytes_per].copy_from_slice(c);
            let u = u64::from_le_bytes(raw);
            // Sign-extended from `bits`.
            let s = ((u << (64 - bits)) as i64) >> (64 - bits);
            *o = convert(ty, bits, u, s);
        }
        if self == VertexFormat::B8G8R8A8_UNORM {
            out.swap(0, 2);
        }
    }
}

/// One component: `u` is its bits, `s` the same sign-extended. Up to 16 bits the arithmetic
/// is f32, as the model's fetch does it (sim ta/fetch.rs), so the two agree to the bit.
fn convert(ty: CompType, bits: u32, u: u64, s: i64) -> f32 {
    // The largest unsigned and signed values of `bits` bits (64: the width of u64).
    let max_u = (u64::MAX >> (64 - bits)) as f64;
    let max_s = (u64::MAX >> (65 - bits)) as f64;
    match ty {
        CompType::Float => match bits {
            16 => half::f16::from_bits(u as u16).to_f32(),
            32 => f32::from_bits(u as u32),
            _ => f64::from_bits(u) as f32,
        },
        CompType::Fixed => (s as f64 / 65536.0) as f32,
        CompType::Unorm if bits <= 16 => u as f32 / max_u as f32,
        CompType::Unorm => (u as f64 / max_u) as f32,
        CompType::Snorm if bits <= 16 => (s as f32 / max_s as f32).max(-1.0),
        CompType::Snorm => (s as f64 / max_s).max(-1.0) as f32,
        CompType::Uscaled | CompType::Uint => u as f32,
        CompType::Sscaled | CompType::Sint => s as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: VertexFormat, src: &[u8]) -> Vec<f32> {
        let mut out = [9.0f32; 4];
        fmt.to_f32(src, &mut out);
        out[..fmt.comps() as usize].to_vec()
    }

    #[test]
    fn conversions_follow_gl() {
        use VertexFormat::*;
        assert_eq!(f(R16G16_FLOAT, &[0x00, 0x3c, 0x00, 0xc0]), [1.0, -2.0]);
        assert_eq!(f(R64_FLOAT, &0.25f64.to_le_bytes()), [0.25]);
        assert_eq!(f(R32_FIXED, &(-0x18000i32).to_le_bytes()), [-1.5]);
        assert_eq!(f(R8G8_SNORM, &[0x80, 0x7f]), [-1.0, 1.0]);
        assert_eq!(f(R8_SNORM, &[0x81]), [-1.0]);
        assert_eq!(f(R32_UNORM, &u32::MAX.to_le_bytes()), [1.0]);
        assert_eq!(f(R32_SNORM, &i32::MIN.to_le_bytes()), [-1.0]);
        assert_eq!(f(R32_SSCALED, &(-7i32).to_le_bytes()), [-7.0]);
        assert_eq!(f(R8G8B8_SSCALED, &[0xff, 0x80, 3]), [-1.0, -128.0, 3.0]);
        assert_eq!(
            f(R16G16B16_SINT, &[0xfe, 0xff, 5, 0, 0, 0x80]),
            [-2.0, 5.0, -32768.0]
        );
        assert_eq!(
            f(R16G16B16_UINT, &[0xfe, 0xff, 5, 0, 0, 0x80]),
            [65534.0, 5.0, 32768.0]
        );
        assert_eq!(f(B8G8R8A8_UNORM, &[0, 51, 255, 255]), [1.0, 0.2, 0.0, 1.0]);
        assert_eq!(f(R8G8B8_UNORM, &[255, 0, 51]), [1.0, 0.0, 0.2]);
    }

    #[test]
    fn every_format_has_whole_bytes_and_at_most_four_components() {
        for &fmt in VertexFormat::ALL {
            let (_, bits, comps) = fmt.layout();
            assert!(bits % 8 == 0 && (1..=4).contains(&comps), "{fmt:?}");
            let (_, hw_comps, hw_B) = fmt.hw();
            assert_eq!(hw_comps, comps, "{fmt:?}");
            assert!(hw_B <= 16, "{fmt:?}");
        }
    }
}
